"""The friends' pages (namespace "games")."""

from django.urls import path

from games.friends import views

urlpatterns = [
    path("friends/", views.friends_page, name="friends"),
    path("friends/follow/<int:user_id>/", views.follow, name="follow"),
    path("friends/unfollow/<int:user_id>/", views.unfollow, name="unfollow"),
    path("friends/<int:user_id>/challenge/", views.friend_challenge, name="friend_challenge"),
    path(
        "friends/challenge/<uuid:challenge_id>/decline/",
        views.friend_decline,
        name="friend_decline",
    ),
]
