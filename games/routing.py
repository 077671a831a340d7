"""WebSocket routes of the games app, included by ``nardy_site.asgi``."""
from django.urls import path

from games.consumers import GameConsumer

websocket_urlpatterns = [
    path("ws/game/<uuid:game_id>/", GameConsumer.as_asgi()),
]
