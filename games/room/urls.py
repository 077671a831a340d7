"""The game room's pages (inside ``i18n_patterns``, namespace "games"; docs/protocol.md
"HTTP pages"): new game, the game and match pages, my games, replays, records, analysis
and a position's page. The position images live outside the language prefix
(``games.room.image_urls``)."""

from django.urls import path, re_path

from games.room import analysis_views, history_views, position_views, replay_views, views

urlpatterns = [
    path("new/", views.new_game, name="new"),
    path("game/<uuid:game_id>/", views.game_page, name="game"),
    path("game/<uuid:game_id>/replay/", replay_views.replay_page, name="replay"),
    path("game/<uuid:game_id>/record.txt", replay_views.record_download, name="record"),
    path("game/<uuid:game_id>/analysis/", analysis_views.analysis_request, name="analysis_request"),
    path(
        "game/<uuid:game_id>/analysis/status/",
        analysis_views.analysis_status,
        name="analysis_status",
    ),
    path("match/<uuid:match_id>/", views.match_page, name="match"),
    path("games/", history_views.my_games, name="my_games"),
    path("records/import/", replay_views.import_record, name="import"),
    path("records/<uuid:record_id>/", replay_views.imported_replay, name="imported"),
    # Only the ID's alphabet, so that e.g. /position/x.svg (a bad image ID) is not redirected here.
    re_path(
        r"^position/(?P<position_id>[A-Za-z0-9_-]{1,64})/$",
        position_views.position_page,
        name="position",
    ),
]
