"""WSGI entry point: plain HTTP only (no WebSockets). The site is meant to run under Daphne
(``nardy_site.asgi``); this exists for tools that expect a WSGI application."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nardy_site.settings")

application = get_wsgi_application()
