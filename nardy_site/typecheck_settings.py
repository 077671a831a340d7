"""The settings the type checker loads (pyproject.toml ``[tool.django-stubs]``): the site's own,
with a Redis URL nothing listens on when ``REDIS_URL`` is not set. django-stubs' plugin imports
the settings to learn the models, and the settings require ``REDIS_URL`` but only read it (no
connection is made), so ``.venv/bin/mypy`` runs alone. Never the settings of a running site."""

import os

os.environ.setdefault("REDIS_URL", "redis://mypy.invalid:6379/0")

from nardy_site.settings import *  # noqa: F403
