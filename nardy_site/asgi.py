"""ASGI entry point (served by Daphne).

HTTP goes to Django; WebSockets go through the origin check (``nardy_site.origins``: the
page's scheme, host and port must be this site's, or in CSRF_TRUSTED_ORIGINS) and the
session/auth middleware (guests are recognised by their session) to ``games.routing``.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nardy_site.settings")

# Set up Django before importing anything that touches models (consumers, auth middleware).
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from games.routing import websocket_urlpatterns  # noqa: E402
from nardy_site.origins import SiteOriginValidator  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SiteOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
