"""Signals between the parts of the games app that must not import each other."""

from django.dispatch import Signal

#: sent inside the transaction that ends a game (``games.services.turns.finish``), with
#: ``sender`` the Game class and ``game`` the finished game: the post-game analysis listens
#: (``games.analysis``), so the service layer needs not know it
game_finished = Signal()

#: sent inside the transaction that decides a result: a single game's end, or the end of a
#: match (``games.services.turns``), after the ratings moved; with ``sender`` the Game class,
#: ``game`` the deciding game, ``match`` its Match or None and ``winner`` ("white"/"black"):
#: the tournaments listen (``games.tournaments``)
result_decided = Signal()

#: sent inside the transaction that aborts a game because ``side`` did not make its first
#: move in time (a no-show; the game has no result), with ``sender`` the Game class and
#: ``game``: a cup counts the no-show as a lost match (``games.tournaments``)
game_aborted = Signal()
