"""HTTP routes of the games app (mounted inside ``i18n_patterns`` with namespace "games")."""
from django.urls import path

from games import views

app_name = "games"

urlpatterns = [
    path("new/", views.new_game, name="new"),
    path("game/<uuid:game_id>/", views.game_page, name="game"),
]
