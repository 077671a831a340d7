"""``/sitemap.xml``: every rules page in every language, each with its hreflang alternates."""

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.sitemaps import Sitemap
from django.urls import reverse

# URL names (namespace "rules") of the pages listed, home first.
PAGES = ["home", "rules", "faq", "glossary", "first_steps"]


class RulesPagesSitemap(Sitemap):
    """One ``<url>`` per page and language (``i18n``), each listing the page in every language
    and the unprefixed ``x-default`` as ``xhtml:link`` alternates."""

    i18n = True
    alternates = True
    x_default = True
    changefreq = "monthly"

    def items(self):
        return PAGES

    def location(self, item):
        return reverse(f"rules:{item}")

    def priority(self, item):
        return 1.0 if item == "home" else 0.8

    def get_protocol(self, protocol=None):
        if settings.SITE_URL:
            return urlsplit(settings.SITE_URL).scheme
        return super().get_protocol(protocol)

    def get_domain(self, site=None):
        if settings.SITE_URL:
            return urlsplit(settings.SITE_URL).netloc
        return super().get_domain(site)


SITEMAPS = {"rules": RulesPagesSitemap}
