"""Friends (docs/architecture.md "The areas"): a signed-in player follows others, sees who of
them is online, in a game (to watch) or away, and challenges one directly; the friend hears of
it on any open page of the site (the notices socket, ``consumer``) and by Telegram if they
asked for its notices.

| module | what |
|---|---|
| ``models`` | ``Follow`` (who follows whom), ``LastSeen`` (when an account last had a page open) |
| ``following`` | follow, unfollow, who follows whom |
| ``presence`` | online (a key the notices socket keeps fresh), in a game, last seen; the list |
| ``challenges`` | a challenge addressed to a friend: made, declined, what the sockets are sent |
| ``consumer`` | ``ws/notices/``: the site-wide notices socket of a signed-in account |
| ``views``, ``urls`` | the friends page, follow and unfollow, the challenge form, decline |
"""
