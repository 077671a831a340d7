"""WebSocket routes of the games app, included by ``nardy_site.asgi``.

Any other path under the socket router is accepted and closed with 4404, like an unknown
game, instead of failing the handshake with a server error.
"""
from django.urls import re_path

from games.consumers import GameConsumer, LobbyConsumer, NotFoundConsumer

websocket_urlpatterns = [
    re_path(r"^ws/game/(?P<game_id>[^/]+)/$", GameConsumer.as_asgi()),
    re_path(r"^ws/lobby/$", LobbyConsumer.as_asgi()),
    re_path(r"", NotFoundConsumer.as_asgi()),
]
