"""Players' pages (namespace "games"): a player's card, one's own profile, the leaderboard."""

from django.urls import path

from games.accounts import views

urlpatterns = [
    path("players/<int:user_id>/", views.player_page, name="player"),
    path("profile/", views.own_profile, name="profile"),
    path("leaderboard/", views.leaderboard_page, name="leaderboard"),
]
