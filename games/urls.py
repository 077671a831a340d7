"""HTTP routes of the games app (mounted inside ``i18n_patterns`` with namespace "games";
docs/protocol.md "HTTP pages"). The position images live outside the language prefix, in
``games.image_urls``."""

from django.urls import path, re_path

from games import analysis_views, profile_views, telegram_views, tournament_views, views

app_name = "games"

urlpatterns = [
    path("new/", views.new_game, name="new"),
    path("game/<uuid:game_id>/", views.game_page, name="game"),
    path("game/<uuid:game_id>/replay/", views.replay_page, name="replay"),
    path("game/<uuid:game_id>/record.txt", views.record_download, name="record"),
    path("game/<uuid:game_id>/analysis/", analysis_views.analysis_request, name="analysis_request"),
    path(
        "game/<uuid:game_id>/analysis/status/",
        analysis_views.analysis_status,
        name="analysis_status",
    ),
    path("match/<uuid:match_id>/", views.match_page, name="match"),
    path("games/", views.my_games, name="my_games"),
    path("friend/", views.challenge_new, name="challenge_new"),
    path("challenge/<uuid:challenge_id>/", views.challenge_page, name="challenge"),
    path("challenge/<uuid:challenge_id>/accept/", views.challenge_accept, name="challenge_accept"),
    path("challenge/<uuid:challenge_id>/cancel/", views.challenge_cancel, name="challenge_cancel"),
    path("challenge/<uuid:challenge_id>/status/", views.challenge_status, name="challenge_status"),
    path("players/<int:user_id>/", profile_views.player_page, name="player"),
    path("profile/", profile_views.own_profile, name="profile"),
    path("profile/telegram/", telegram_views.notices_choice, name="telegram_notices"),
    path("leaderboard/", profile_views.leaderboard_page, name="leaderboard"),
    path("lobby/", views.lobby_page, name="lobby"),
    path("tournaments/", tournament_views.tournament_list, name="tournaments"),
    path(
        "tournaments/<uuid:tournament_id>/",
        tournament_views.tournament_page,
        name="tournament",
    ),
    path(
        "tournaments/<uuid:tournament_id>/join/",
        tournament_views.tournament_join,
        name="tournament_join",
    ),
    path(
        "tournaments/<uuid:tournament_id>/leave/",
        tournament_views.tournament_leave,
        name="tournament_leave",
    ),
    path("records/import/", views.import_record, name="import"),
    path("records/<uuid:record_id>/", views.imported_replay, name="imported"),
    # Only the ID's alphabet, so that e.g. /position/x.svg (a bad image ID) is not redirected here.
    re_path(
        r"^position/(?P<position_id>[A-Za-z0-9_-]{1,64})/$", views.position_page, name="position"
    ),
]
