"""Friends (docs/architecture.md "The areas"): a signed-in player follows others, sees who of
them is in a game (to watch) and, of those who follow back, who is online or away, and
challenges one of those directly; the friend hears of it on any open page of the site (the
notices socket, ``consumer``) and by Telegram if they asked for its notices. Online status and
challenges are only between players who follow each other: unfollowing ends both at once.

| module | what |
|---|---|
| ``models`` | ``Follow`` (who follows whom), ``LastSeen`` (when an account last had a page open) |
| ``following`` | follow, unfollow, who follows whom, who follows each other |
| ``presence`` | online (a key the notices socket keeps fresh), in a game, last seen; the list |
| ``challenges`` | a challenge to a friend: made, declined, withdrawn by an unfollow; the frames |
| ``consumer`` | ``ws/notices/``: the site-wide notices socket of a signed-in account |
| ``views``, ``urls`` | the friends page, follow and unfollow, the challenge form, decline |
"""
