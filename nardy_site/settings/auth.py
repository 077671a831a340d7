"""Sessions and sign-in: the admin's password (throttled by django-axes), the sign-in
providers of django-allauth (Google, Telegram), the development sign-in and the Telegram
bot."""

from datetime import timedelta

from django.core.exceptions import ImproperlyConfigured

from .environment import PRODUCTION, env, required
from .pages import SITE_URL

# --- Sessions, auth -------------------------------------------------------------------------
SESSION_ENGINE = "django.contrib.sessions.backends.db"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# --- Accounts: django-allauth, social sign-in only (games/accounts/sign_in.py) --------------
# DEV_SIGN_IN (default: on in development, off in production): the sign-in page offers a
# development sign-in with any name and no password (games/accounts/dev_sign_in.py), so rated
# play can be tried between two browsers on a machine with no sign-in provider.
DEV_SIGN_IN = env.bool("DEV_SIGN_IN", default=not PRODUCTION)
if PRODUCTION and DEV_SIGN_IN:
    raise ImproperlyConfigured(
        "DEV_SIGN_IN must be off when DJANGO_ENV=production: anyone could sign in as anyone."
    )
AUTHENTICATION_BACKENDS = [
    # first, as django-axes asks: refuses a locked-out address before the password is checked
    "axes.backends.AxesStandaloneBackend",
    # the admin's username and password
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
# The admin's sign-in (the only one with a password) is throttled by django-axes: after
# AXES_FAILURE_LIMIT wrong passwords from one address, that address is refused for
# AXES_COOLOFF_MINUTES. A success does not clear the count (a player signing in from that
# address would otherwise lift it); failures older than the cool-off stop counting. Attempts
# are kept in the database and listed in the admin ("Axes"); `manage.py axes_reset` lifts
# every lockout. The log names the address (not the username typed, which may be a password).
AXES_ENABLED = env.bool("AXES_ENABLED", default=True)
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.float("AXES_COOLOFF_MINUTES", default=30))
AXES_LOCKOUT_PARAMETERS = ["ip_address"]
AXES_RESET_ON_SUCCESS = False
AXES_SENSITIVE_PARAMETERS = ["username"]
# Tries during a lockout are refused unchecked, so they need not lengthen it: the page can
# then say truly how long is left.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "nardy_site.errors.admin_locked_out"
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "rules:home"
# No local passwords, sign-up forms or e-mail management: a player signs in with a provider,
# and the first sign-in makes the account without asking anything (Telegram gives no e-mail,
# so none is required).
SOCIALACCOUNT_ONLY = True
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_ADAPTER = "games.accounts.sign_in.SocialAccountAdapter"
ACCOUNT_ADAPTER = "games.accounts.sign_in.AccountAdapter"
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_EMAIL_REQUIRED = False
SOCIALACCOUNT_QUERY_EMAIL = False
SOCIALACCOUNT_STORE_TOKENS = False
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_LOGIN_METHODS = {"username"}
ACCOUNT_SIGNUP_FIELDS = ["username*"]
ACCOUNT_LOGOUT_REDIRECT_URL = "rules:home"
# The Telegram sign-in's data stays valid this long after Telegram signed it (seconds): long
# enough for a slow phone or a clock a little off, short enough that an old, leaked link is
# useless; each answer also signs in only once. games.accounts.telegram_callback refuses
# older or used ones with a clear page; allauth's own check gets the same bound.
TELEGRAM_AUTH_MAX_AGE = 600
# The bot (games/telegram): its token turns on the Telegram sign-in, the Mini App, the webhook
# and the notices; without it none of them exists (their URLs answer 404).
TELEGRAM_BOT_TOKEN = env.str("TELEGRAM_BOT_TOKEN", default="").strip()
TELEGRAM_BOT_USERNAME = env.str("TELEGRAM_BOT_USERNAME", default="").strip().lstrip("@")
TELEGRAM_MINI_APP_NAME = env.str("TELEGRAM_MINI_APP_NAME", default="").strip()
TELEGRAM_API_URL = env.str("TELEGRAM_API_URL", default="https://api.telegram.org").rstrip("/")
TELEGRAM_WEBHOOK_SECRET = env.str("TELEGRAM_WEBHOOK_SECRET", default="").strip()
# Telegram's own limits for one bot: about 30 messages a second in all and one a second per
# chat (https://core.telegram.org/bots/faq); the notices keep under both.
TELEGRAM_SEND_LIMITS = env.str("TELEGRAM_SEND_LIMITS", default="25/second")
TELEGRAM_CHAT_LIMITS = env.str("TELEGRAM_CHAT_LIMITS", default="1/second;20/minute")
# A player whose game page closed less than this long ago (seconds) is not yet told it is
# their turn: a reload must not send a message.
TELEGRAM_TURN_GRACE_SECONDS = env.float("TELEGRAM_TURN_GRACE_SECONDS", default=10.0)
if PRODUCTION and TELEGRAM_BOT_TOKEN and not SITE_URL:
    required("SITE_URL", "the bot's buttons and notices (sent from Celery) link to the site")


def _social_providers():
    """SOCIALACCOUNT_PROVIDERS with an app for each provider whose credentials are set."""
    providers = {
        "google": {
            "SCOPE": ["profile"],
            "AUTH_PARAMS": {"prompt": "select_account"},
            "OAUTH_PKCE_ENABLED": True,
        },
        "telegram": {"AUTH_PARAMS": {"auth_date_validity": TELEGRAM_AUTH_MAX_AGE}},
    }
    google_id = env.str("GOOGLE_CLIENT_ID", default="")
    google_secret = env.str("GOOGLE_CLIENT_SECRET", default="")
    if google_id and google_secret:
        providers["google"]["APPS"] = [{"client_id": google_id, "secret": google_secret}]
    bot_token = env.str("TELEGRAM_BOT_TOKEN", default="").strip()
    bot_id = env.str("TELEGRAM_BOT_ID", default="") or bot_token.partition(":")[0]
    if bot_id and bot_token:
        providers["telegram"]["APPS"] = [{"client_id": bot_id, "secret": bot_token}]
    return providers


SOCIALACCOUNT_PROVIDERS = _social_providers()
if TELEGRAM_BOT_TOKEN and PRODUCTION:
    # Telegram's web clients frame the Mini App (web.telegram.org), where a browser sends
    # only cookies marked SameSite=None (and Secure, which production's are) to the frame.
    # CSRF stays checked by its token and the Origin header.
    SESSION_COOKIE_SAMESITE = CSRF_COOKIE_SAMESITE = LANGUAGE_COOKIE_SAMESITE = "None"
