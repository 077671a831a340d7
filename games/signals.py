"""Signals between the parts of the games app that must not import each other."""

from django.dispatch import Signal

#: sent inside the transaction that ends a game (``games.services.turns.finish``), with
#: ``sender`` the Game class and ``game`` the finished game: the post-game analysis listens
#: (``games.room.analysis``), so the service layer needs not know it
game_finished = Signal()

#: sent inside the transaction that decides a result: a single game's end, or the end of a
#: match (``games.services.turns``), after the ratings moved; with ``sender`` the Game class,
#: ``game`` the deciding game, ``match`` its Match or None and ``winner`` ("white"/"black"):
#: the tournaments listen (``games.tournaments``)
result_decided = Signal()

#: sent inside the transaction that aborts a game because ``side`` left it before its first
#: play (the game has no result), with ``sender`` the Game class, ``game``, ``side`` and
#: ``how`` (an ``EndReason``: "resign", "drop", "abandon", or "timeout" for a no-show): an
#: arena scores nothing, a cup counts it as a lost match (``games.tournaments``)
game_aborted = Signal()

#: sent once a change of a game has committed, when its messages and tasks have been handed
#: on (``games.services.dispatch.deliver``), with ``sender`` the Game class and ``notice`` the
#: ``dispatch.Notice`` (the game as saved, the events recorded): the Telegram turn notices
#: listen (``games.telegram.notices``). A receiver must not raise.
change_delivered = Signal()

#: sent inside the transaction in which a challenge is accepted
#: (``games.services.starting.accept_challenge``), with ``sender`` the Game class,
#: ``challenge`` and ``game`` (the game it started): the Telegram notices listen, and the
#: friends' notices (the challenger hears of it)
challenge_accepted = Signal()

#: sent inside the transaction in which a challenge's creator withdraws it
#: (``games.services.starting.cancel_challenge``), with ``sender`` the Challenge class and
#: ``challenge``: the friends' notices take it back from its addressee's pages
challenge_withdrawn = Signal()

#: sent inside the transaction that starts a tournament's game
#: (``games.tournaments.play.start_game``), with ``sender`` the Game class, ``tournament``,
#: ``game`` and ``user_ids`` (its two players): the Telegram notices listen
tournament_game_started = Signal()
