"""URLs of the rules pages, included under each language prefix with namespace ``rules``."""

from django.urls import path

from . import views

app_name = "rules"

urlpatterns = [
    path("", views.RulesView.as_view(), name="home"),
    path("rules/", views.RulesView.as_view(), name="rules"),
]
