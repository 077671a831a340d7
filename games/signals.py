"""Signals between the parts of the games app that must not import each other."""

from django.dispatch import Signal

#: sent inside the transaction that ends a game (``games.services.turns.finish``), with
#: ``sender`` the Game class and ``game`` the finished game: the post-game analysis listens
#: (``games.analysis``), so the service layer needs not know it
game_finished = Signal()
