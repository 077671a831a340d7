"""The site's core: its secret key, hosts and admin path (refused in production when weak or
missing), the installed apps, middleware, URLs and templates, the languages and the static
files."""

import os
import re
import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from .environment import BASE_DIR, PRODUCTION, env, required


def _secret_key() -> str:
    """The SECRET_KEY from the environment, else a random one stored once in .secret_key.

    In production it must come from the environment (every process behind the load balancer
    needs the same key) and be as strong as ``check --deploy`` asks: at least 50 characters,
    5 different ones, not a development key Django generates (``django-insecure-…``)."""
    if PRODUCTION:
        key = required(
            "SECRET_KEY",
            "a long random string shared by every process, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(50))'.",
        )
        if len(key) < 50 or len(set(key)) < 5 or key.startswith("django-insecure-"):
            raise ImproperlyConfigured(
                "SECRET_KEY is too weak for production: use at least 50 random characters."
            )
        return key
    key = env.str("SECRET_KEY", default="")
    if key:
        return key
    path = BASE_DIR / ".secret_key"
    try:
        # O_EXCL: when Daphne and the Celery worker start together only one writes the file.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50))
    key = path.read_text().strip()
    if not key:
        raise ImproperlyConfigured(f"{path} is empty: delete it or set SECRET_KEY.")
    return key


SECRET_KEY = _secret_key()
DEBUG = env.bool("DEBUG", default=False)
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured("DEBUG must be off when DJANGO_ENV=production: unset DEBUG.")
if PRODUCTION:
    required("ALLOWED_HOSTS", "the site's host names, comma-separated, e.g. nardy.example.")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
if PRODUCTION and "*" in ALLOWED_HOSTS:
    # The sign-in providers are sent back to URLs built from the Host header.
    raise ImproperlyConfigured("ALLOWED_HOSTS must name the site's hosts in production, not '*'.")
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# A form refused by the CSRF check gets the site's own page (Django's is unstyled and its
# inline style is blocked by the Content-Security-Policy).
CSRF_FAILURE_VIEW = "nardy_site.errors.csrf_failure"


def _admin_url() -> str:
    """The admin's path (no leading slash, one trailing slash). Production requires
    ``ADMIN_URL`` and refuses paths a scanner tries first."""
    if not PRODUCTION:
        return env.str("ADMIN_URL", default="admin/").strip("/") + "/"
    path = required(
        "ADMIN_URL",
        "a path of your own for the admin, e.g. python -c "
        "\"import secrets; print('staff-' + secrets.token_urlsafe(12) + '/')\".",
    )
    path = path.strip("/")
    # Unreserved URL characters only: anything else would need quoting, and "<" ">" would be
    # read by path() as a converter.
    if not re.fullmatch(r"[A-Za-z0-9._~-]+", path):
        raise ImproperlyConfigured(
            f"ADMIN_URL {path!r} must be one path segment of letters, digits and - _ . ~ only."
        )
    guessable = {
        "admin",
        "administrator",
        "django-admin",
        "djangoadmin",
        "backend",
        "manage",
        "staff",
        "dashboard",
        "control",
        "panel",
        "adminpanel",
        "admin-panel",
    }
    if len(path) < 12 or path.lower() in guessable:
        # What is checked is the length and the usual names; the random part the example
        # adds is advice, since randomness cannot be checked.
        raise ImproperlyConfigured(
            f"ADMIN_URL {path!r} is too easy to guess: use at least 12 characters that are not "
            'a usual admin name, best with a random part (docs/deploy.md, "Environment").'
        )
    return path + "/"


ADMIN_URL = _admin_url()

INSTALLED_APPS = [
    # daphne first: its runserver serves ASGI (HTTP and WebSockets).
    "daphne",
    # whitenoise before staticfiles: runserver then leaves static files to WhiteNoise.
    "whitenoise.runserver_nostatic",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "channels",
    # The Content-Security-Policy header (CONTENT_SECURITY_POLICY below); the app adds its checks.
    "csp",
    "games",
    "rules_pages",
    # Accounts: sign-in with Google or Telegram only (games/accounts/sign_in.py).
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.google",
    "allauth.socialaccount.providers.telegram",
    # Failed admin sign-ins counted and locked out (AXES_* below).
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    # Compresses pages for clients that accept gzip (a rules page with its SVG boards shrinks
    # about eightfold); outside every middleware that writes the body. Django's GZip pads the
    # output randomly against BREACH, and CSRF tokens are masked per response.
    "django.middleware.gzip.GZipMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # After CsrfViewMiddleware: puts this visitor's CSRF token into pages served from the page
    # cache (rules_pages/cache.py), so that one cached copy serves every reader.
    "rules_pages.cache.CachedPageCsrfMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Tells a signed-out session's game sockets once the sign-out's view is done (the session
    # is flushed by then), so their pages reload signed out.
    "games.accounts.sign_in.SignOutNoticeMiddleware",
    # After CachedPageCsrfMiddleware (its answer passes here first): puts this visitor's
    # "Sign in" / name-and-sign-out into pages served from the page cache.
    "games.accounts.sign_in.AccountMenuMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # After XFrameOptionsMiddleware (its answer passes here first): a page opened inside
    # Telegram may load Telegram's script and be framed by Telegram's web clients.
    "games.telegram.pages.TelegramPagesMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # Last, as django-axes asks: answers a locked-out sign-in with the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "nardy_site.urls"
WSGI_APPLICATION = "nardy_site.wsgi.application"
ASGI_APPLICATION = "nardy_site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "games.telegram.pages.context",
            ],
        },
    },
]

# --- Languages ------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", _("English")),
    ("ru", _("Russian")),
    ("bg", _("Bulgarian")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
# Our own Bulgarian date formats (Django's leave the date-and-time ones to the US default).
FORMAT_MODULE_PATH = ["nardy_site.formats"]
TIME_ZONE = "UTC"
USE_TZ = True

# --- Static files (served by WhiteNoise under Daphne) -----------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Development: compressed but not hashed, so pages render without a manifest (tests, a
    # fresh checkout). Production: file names carry a hash of the content, so browsers may
    # keep them forever (WhiteNoise says so), and JavaScript modules import each other by the
    # hashed names (nardy_site/storage.py); needs collectstatic, the Procfile's release.
    "staticfiles": {
        "BACKEND": "nardy_site.storage.ModuleManifestStaticFilesStorage"
        if PRODUCTION
        else "whitenoise.storage.CompressedStaticFilesStorage"
    },
}
# Development serves straight from the apps' static folders as well, so a server started
# without collectstatic (the tests' Daphne) still has every file; production only from
# STATIC_ROOT, where the hashed names are.
WHITENOISE_USE_FINDERS = not PRODUCTION
