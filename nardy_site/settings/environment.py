"""Where the settings come from: the environment (django-environ's ``env``), the project's
folder, and which deployment this is (``DJANGO_ENV``: development, the default, or
production). In production every required variable missing is named at once, and
``required`` names a single one with an example of its value."""

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

#: the project's folder (this file is nardy_site/settings/environment.py)
BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

# --- Deployment: development (default) or production -----------------------------------------
DJANGO_ENV = env.str("DJANGO_ENV", default="development").strip().lower()
if DJANGO_ENV not in ("development", "production"):
    raise ImproperlyConfigured(
        f"DJANGO_ENV must be 'development' or 'production', not {DJANGO_ENV!r}."
    )
PRODUCTION = DJANGO_ENV == "production"
if PRODUCTION:
    # All the missing ones at once; a single one gets its own message with an example below.
    _missing = [
        name
        for name in ("SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL", "ADMIN_URL")
        if not env.str(name, default="").strip()
    ]
    if len(_missing) > 1:
        raise ImproperlyConfigured(
            f"{', '.join(_missing)} must be set when DJANGO_ENV=production "
            '(docs/deploy.md, "Environment").'
        )


def required(name: str, why: str) -> str:
    """The value of environment variable ``name``; ImproperlyConfigured naming it (and
    ``why`` it is needed) when it is unset or blank in production."""
    value = env.str(name, default="").strip()
    if not value:
        raise ImproperlyConfigured(f"{name} must be set when DJANGO_ENV=production: {why}")
    return value
