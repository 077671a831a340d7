"""HTTP routes of the games app, mounted inside ``i18n_patterns`` with namespace "games"
(docs/protocol.md "HTTP pages"): each area's own ``urls`` module, in one namespace so every
URL name (``games:game``, ``games:lobby``, …) stays as it was."""

from games.accounts import urls as accounts_urls
from games.challenges import urls as challenges_urls
from games.friends import urls as friends_urls
from games.lobby import urls as lobby_urls
from games.room import urls as room_urls
from games.telegram import urls as telegram_urls
from games.tournaments import urls as tournaments_urls

app_name = "games"

urlpatterns = [
    *room_urls.urlpatterns,
    *challenges_urls.urlpatterns,
    *accounts_urls.urlpatterns,
    *telegram_urls.urlpatterns,
    *lobby_urls.urlpatterns,
    *tournaments_urls.urlpatterns,
    *friends_urls.urlpatterns,
]
