"""Challenge links' pages (namespace "games")."""

from django.urls import path

from games.challenges import views

urlpatterns = [
    path("friend/", views.challenge_new, name="challenge_new"),
    path("challenge/<uuid:challenge_id>/", views.challenge_page, name="challenge"),
    path("challenge/<uuid:challenge_id>/accept/", views.challenge_accept, name="challenge_accept"),
    path("challenge/<uuid:challenge_id>/cancel/", views.challenge_cancel, name="challenge_cancel"),
    path("challenge/<uuid:challenge_id>/status/", views.challenge_status, name="challenge_status"),
]
