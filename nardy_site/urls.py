"""Root URLconf.

Every page lives under a language prefix (``/en/``, ``/ru/``, ``/bg/``). A path without one,
``/`` included, is redirected by LocaleMiddleware to the visitor's language (language cookie,
then Accept-Language, then English).
"""

from allauth.socialaccount.providers.google import views as google_views
from django.conf import settings
from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.templatetags.static import static
from django.urls import include, path
from django.utils.functional import lazy
from django.views.decorators.cache import cache_page
from django.views.generic import RedirectView
from django.views.i18n import JavaScriptCatalog, set_language

from games.accounts import dev_sign_in, sign_in
from games.telegram import views
from rules_pages.sitemaps import SITEMAPS
from rules_pages.views import robots_txt

urlpatterns = i18n_patterns(
    path("", include("rules_pages.urls", namespace="rules")),
    # games.urls names its own paths (new/, game/<id>/, replay, records, position share page).
    path("", include(("games.urls", "games"), namespace="games")),
    # The JavaScript catalogue (domain djangojs) in the page's language.
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    # POST language + next: redirects to `next` translated into the chosen language. Inside
    # the language prefix because translate_url() only resolves `next` (e.g. /ru/rules/)
    # while the language of its own prefix is active.
    path("i18n/setlang/", set_language, name="set_language"),
    # Accounts (django-allauth, social sign-in only): sign-in page, sign-out, the providers'
    # login URLs. Telegram's answer is checked by games.accounts before allauth's view of the
    # same URL gets it, so this path comes first.
    path(
        "accounts/telegram/login/callback/",
        sign_in.telegram_callback,
        name="telegram_callback_checked",
    ),
    # The development sign-in (any name, no password; 404 unless settings.DEV_SIGN_IN).
    path("accounts/dev/", dev_sign_in.sign_in, name="dev_sign_in"),
    path("accounts/", include("allauth.urls")),
)

urlpatterns += [
    # settings.ADMIN_URL: "admin/" in development, a path of the operator's own in production.
    path(settings.ADMIN_URL, admin.site.urls),
    # Google's OAuth callback, in no language: the one redirect URI registered with Google.
    # Defined after allauth's own (language-prefixed) one, so reverse("google_callback"), which
    # allauth sends to Google, gives this path.
    path("accounts/google/login/callback/", google_views.oauth2_callback, name="google_callback"),
    # Position images (games/room/image_urls.py): one per position ID, in no language.
    path("", include("games.room.image_urls")),
    # Every page in every language, with hreflang alternates (rules_pages/sitemaps.py).
    path(
        "sitemap.xml",
        cache_page(3600, key_prefix="sitemap")(sitemap),
        {"sitemaps": SITEMAPS},
        name="django.contrib.sitemaps.views.sitemap",
    ),
    path("robots.txt", robots_txt, name="robots_txt"),
    # Telegram (404 without a bot): the Mini App's URL, in no language (it signs in and goes
    # on in the Telegram user's), its sign-in, and the bot's webhook.
    path("tg/", views.app_entry, name="telegram_app"),
    path("tg/session/", views.app_sign_in, name="telegram_sign_in"),
    path("telegram/webhook/<str:secret>/", views.webhook_view, name="telegram_webhook"),
    # Browsers and crawlers ask for /favicon.ico whatever the page links to.
    # The URL is looked up per request: in production it is the hashed name from the manifest,
    # which collectstatic writes after this module may first be imported (check --deploy).
    path("favicon.ico", RedirectView.as_view(url=lazy(static, str)("favicon.svg"), permanent=True)),
]

# The error pages rendered with the request, so they extend base.html, and never raising
# (nardy_site/errors.py); the 404 is Django's own view, which already passes the request.
handler400 = "nardy_site.errors.bad_request"
handler403 = "nardy_site.errors.permission_denied"
handler500 = "nardy_site.errors.server_error"
