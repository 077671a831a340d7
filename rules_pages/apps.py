"""The rules summary pages (the site's landing page in each language)."""

from django.apps import AppConfig


class RulesPagesConfig(AppConfig):
    """App config for ``rules_pages``: no models, only views and templates."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rules_pages"
    verbose_name = "Rules pages"
