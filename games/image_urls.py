"""Position images (docs/protocol.md "HTTP pages"): the same for every language, so outside
``i18n_patterns``: ``/position/<id>.svg`` and ``/position/<id>.png``."""

from django.urls import path

from games import views

urlpatterns = [
    path("position/<str:position_id>.svg", views.position_svg, name="position_svg"),
    path("position/<str:position_id>.png", views.position_png, name="position_png"),
]
