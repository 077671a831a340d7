"""The app's model registry: Django imports ``games.models`` to find the app's rows, and each
area keeps its own in its package (docs/architecture.md). Import a model from its area's
module (``games.room.models``, ``games.accounts.models``, …), never from here."""

from games.accounts import models as accounts_models
from games.challenges import models as challenges_models
from games.chat import models as chat_models
from games.friends import models as friends_models
from games.lobby import models as lobby_models
from games.room import models as room_models
from games.services import models as services_models
from games.telegram import models as telegram_models
from games.tournaments import models as tournaments_models

#: the area modules whose models make up the app (all registered once imported here)
AREAS = (
    accounts_models,
    challenges_models,
    chat_models,
    friends_models,
    lobby_models,
    room_models,
    services_models,
    telegram_models,
    tournaments_models,
)
