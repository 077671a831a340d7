"""Root URLconf.

Every page lives under a language prefix (``/en/``, ``/ru/``, ``/bg/``). A path without one,
``/`` included, is redirected by LocaleMiddleware to the visitor's language (language cookie,
then Accept-Language, then English).
"""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.templatetags.static import static
from django.urls import include, path
from django.views.decorators.cache import cache_page
from django.views.generic import RedirectView
from django.views.i18n import JavaScriptCatalog, set_language

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
)

urlpatterns += [
    path("admin/", admin.site.urls),
    # Position images (games/image_urls.py): one per position ID, in no language.
    path("", include("games.image_urls")),
    # Every page in every language, with hreflang alternates (rules_pages/sitemaps.py).
    path("sitemap.xml", cache_page(3600, key_prefix="sitemap")(sitemap), {"sitemaps": SITEMAPS},
         name="django.contrib.sitemaps.views.sitemap"),
    path("robots.txt", robots_txt, name="robots_txt"),
    # Browsers and crawlers ask for /favicon.ico whatever the page links to.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
]

# The 500 page with the request, so it can extend base.html (nardy_site/errors.py).
handler500 = "nardy_site.errors.server_error"
