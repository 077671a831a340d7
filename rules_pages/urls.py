"""URLs of the rules pages, included under each language prefix with namespace ``rules``."""

from django.urls import path

from . import views

app_name = "rules"

urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("rules/", views.RulesView.as_view(), name="rules"),
    path("faq/", views.FaqView.as_view(), name="faq"),
    path("glossary/", views.GlossaryView.as_view(), name="glossary"),
    path("first-steps/", views.FirstStepsView.as_view(), name="first_steps"),
]
