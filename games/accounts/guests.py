"""A visitor's guest identity: a random id kept in their session, by which the games they play
without an account are theirs (``Game.side_of``), read by the views, the sockets and the
sign-in that hands those games to an account."""

import secrets

#: session key holding the visitor's guest id (a random, URL-safe token)
GUEST_SESSION_KEY = "guest_id"


def ensure_guest_id(request):
    """The guest id of this browser's session; created with ``secrets.token_urlsafe(16)``
    if the session has none."""
    guest_id = request.session.get(GUEST_SESSION_KEY)
    if not guest_id:
        guest_id = secrets.token_urlsafe(16)
        request.session[GUEST_SESSION_KEY] = guest_id
    return guest_id
