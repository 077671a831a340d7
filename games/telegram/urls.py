"""The Telegram notices choice on the profile (namespace "games")."""

from django.urls import path

from games.telegram import views

urlpatterns = [
    path("profile/telegram/", views.notices_choice, name="telegram_notices"),
]
