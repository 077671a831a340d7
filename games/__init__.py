"""Long-nardy games: the rules engine (``games.engine``), game models, the service module that
changes games, the live-play consumer, the bot and its Celery task."""
