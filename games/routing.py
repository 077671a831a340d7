"""WebSocket routes of the games app, included by ``nardy_site.asgi``.

Any other path under the socket router is accepted and closed with 4404, like an unknown
game, instead of failing the handshake with a server error. ``ws/echo/`` (the load tool's
baseline, ``games.live.echo``) exists only when ``settings.LOAD_ECHO`` is true.
"""

from django.conf import settings
from django.urls import re_path

from games.friends.consumer import NoticesConsumer
from games.live.echo import EchoConsumer
from games.live.sockets import NotFoundConsumer
from games.lobby.consumer import LobbyConsumer
from games.room.consumer import GameConsumer
from games.tournaments.consumer import TournamentConsumer


def websocket_patterns(echo=False):
    """The socket routes; ``echo`` adds ``ws/echo/`` (before the catch-all)."""
    patterns = [
        re_path(r"^ws/game/(?P<game_id>[^/]+)/$", GameConsumer.as_asgi()),
        re_path(r"^ws/lobby/$", LobbyConsumer.as_asgi()),
        re_path(r"^ws/tournament/(?P<tournament_id>[^/]+)/$", TournamentConsumer.as_asgi()),
        re_path(r"^ws/notices/$", NoticesConsumer.as_asgi()),
    ]
    if echo:
        patterns.append(re_path(r"^ws/echo/$", EchoConsumer.as_asgi()))
    patterns.append(re_path(r"", NotFoundConsumer.as_asgi()))
    return patterns


websocket_urlpatterns = websocket_patterns(echo=getattr(settings, "LOAD_ECHO", False))
