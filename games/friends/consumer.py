"""The notices socket (docs/protocol.md "Notices"): every page of a signed-in player opens
``ws/notices/``; it keeps the account online for its friends and brings the challenges
friends send it, and the answers to its own. Thin: ``games.friends`` does the work."""

import asyncio

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils import translation

from games import services
from games.friends import challenges, presence
from games.live.sockets import (
    CLOSE_NOT_SIGNED_IN,
    CLOSE_SESSION_CHANGED,
    QuietAfterClose,
    SocketCap,
    ThreadPerSocket,
    confirmed_actor,
    frame_text,
    language_of,
    leave_group,
)
from games.services import dispatch


class NoticesConsumer(QuietAfterClose, SocketCap, ThreadPerSocket, AsyncWebsocketConsumer):
    """``ws/notices/?lang=<language>``: signed-in accounts only (others: accepted, then closed
    with 4401); within the socket caps (``SocketCap``: 4429, 4013), counted in places of its
    own (``ratelimits.open_notice_sockets``): a player's many open pages never take a place
    from the socket of their game, the lobby or a tournament.

    Server frames (words in the page's language): ``{"type": "hello", "challenges": [...]}``
    on connect (the friends' challenges still waiting for an answer), ``{"type":
    "challenge", "challenge": {...}}`` (a friend's new challenge; the object as
    ``games.friends.challenges.challenge_notice``), ``{"type": "closed", "challenge":
    <uuid>}`` (that challenge was accepted, declined or withdrawn: its notice goes) and
    ``{"type": "answered", "challenge": <uuid>, "status": "accepted"|"declined", "text",
    "game"}`` (a friend answered the player's challenge). Client frames are ignored: the
    answers go through the challenge's own forms. While open, the socket keeps its account
    online (every ``presence.ONLINE_REFRESH_S``), reading its session again each time: a
    session signed out since is closed with 4001, as a sign-out's notice does at once."""

    socket_places = "open_notice_sockets"

    async def connect(self):
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.accept()
            await self.close(code=CLOSE_NOT_SIGNED_IN)
            return
        self.user_id = user.pk
        self.language = language_of(self.scope)
        self.groups_joined = [challenges.group_name(self.user_id)]
        key = getattr(self.scope.get("session"), "session_key", None)
        if key:
            self.groups_joined.append(dispatch.session_group(key))
        # in the groups before the pending challenges are read: none made meanwhile is missed
        for group in self.groups_joined:
            await self.channel_layer.group_add(group, self.channel_name)
        hello = await database_sync_to_async(self._opened)()
        await self.accept()
        await self.send(text_data=frame_text(hello))
        self.refresh_task = asyncio.ensure_future(self._refresh())

    def _opened(self):
        presence.page_seen(self.user_id)
        with translation.override(self.language):
            return challenges.hello_frame(self.user_id)

    async def disconnect(self, code):
        task = getattr(self, "refresh_task", None)
        if task is not None:
            task.cancel()
        for group in getattr(self, "groups_joined", ()):
            await leave_group(self.channel_layer, group, self.channel_name)
        if getattr(self, "user_id", None) is not None:
            await database_sync_to_async(presence.page_closed)(self.user_id)

    async def receive(self, text_data=None, bytes_data=None):
        """Client frames carry nothing the server needs: ignored, unanswered."""

    async def _refresh(self):
        while True:
            await asyncio.sleep(presence.ONLINE_REFRESH_S)
            if not await self._still_signed_in():
                return
            await database_sync_to_async(presence.page_seen)(self.user_id)

    async def _still_signed_in(self, signed_out=False):
        """Whether the socket's session still holds its account (``signed_out``: it is
        signing out now); if not, the socket is closed with 4001 and the page loads again."""
        if not signed_out:
            confirmed = await database_sync_to_async(confirmed_actor)(
                self.scope, services.Actor(user_id=self.user_id)
            )
            if confirmed.user_id == self.user_id:
                return True
        await self.close(code=CLOSE_SESSION_CHANGED)
        return False

    async def session_changed(self, message):
        """Group message ``{"type": "session.changed"}``: the session is signing out."""
        await self._still_signed_in(signed_out=True)

    async def notices_challenge(self, message):
        """Group message ``{"type": "notices.challenge", "challenge": <uuid>}``: a friend's
        new challenge, sent if it is still open."""
        await self._send_built(challenges.challenge_frame, message["challenge"])

    async def notices_answered(self, message):
        """Group message ``{"type": "notices.answered", "challenge": <uuid>}``: a friend
        answered this player's challenge."""
        await self._send_built(challenges.answer_frame, message["challenge"])

    async def notices_closed(self, message):
        """Group message ``{"type": "notices.closed", "challenge": <uuid>}``."""
        await self.send(text_data=frame_text({"type": "closed", "challenge": message["challenge"]}))

    async def _send_built(self, build, challenge_id):
        def built():
            with translation.override(self.language):
                return build(challenge_id, self.user_id)

        frame = await database_sync_to_async(built)()
        if frame is not None:
            await self.send(text_data=frame_text(frame))
