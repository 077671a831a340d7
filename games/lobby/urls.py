"""The lobby's page (namespace "games")."""

from django.urls import path

from games.lobby import views

urlpatterns = [
    path("lobby/", views.lobby_page, name="lobby"),
]
