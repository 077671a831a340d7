"""The tournaments' pages (namespace "games")."""

from django.urls import path

from games.tournaments import views

urlpatterns = [
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/<uuid:tournament_id>/", views.tournament_page, name="tournament"),
    path("tournaments/<uuid:tournament_id>/join/", views.tournament_join, name="tournament_join"),
    path(
        "tournaments/<uuid:tournament_id>/leave/", views.tournament_leave, name="tournament_leave"
    ),
]
