"""Position images (docs/protocol.md "HTTP pages"): the same for every language, so outside
``i18n_patterns``: ``/position/<id>.svg`` and ``/position/<id>.png``."""

from django.urls import path

from games.room import position_views

urlpatterns = [
    path("position/<str:position_id>.svg", position_views.position_svg, name="position_svg"),
    path("position/<str:position_id>.png", position_views.position_png, name="position_png"),
]
