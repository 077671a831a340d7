"""Root URLconf.

Every page lives under a language prefix (``/en/``, ``/ru/``, ``/bg/``). A path without one,
``/`` included, is redirected by LocaleMiddleware to the visitor's language (language cookie,
then Accept-Language, then English).
"""

from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog, set_language

urlpatterns = i18n_patterns(
    path("", include("rules_pages.urls", namespace="rules")),
    # games.urls names its own paths (new/, game/<id>/).
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
]
