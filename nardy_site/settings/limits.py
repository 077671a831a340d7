"""Rate limits, socket caps, the site's capacity and outages given in the environment; their
defaults are in games/app_settings.py."""

import os

from .environment import env

# --- Rate limits, socket caps and outages: defaults in games/app_settings.py (docs/protocol.md
# "Rate limits", "Outages"); each may be given in the environment too, e.g.
# GAMES_CREATE_IP_LIMITS=600/minute or GAMES_SOCKETS_PER_IP=0 for a load test from one address.
for _name in (
    "GAMES_SOCKET_FRAME_LIMITS",
    "GAMES_SESSION_FRAME_LIMITS",
    "GAMES_CONNECT_SESSION_LIMITS",
    "GAMES_CONNECT_IP_LIMITS",
    "GAMES_CREATE_SESSION_LIMITS",
    "GAMES_CREATE_IP_LIMITS",
    "GAMES_IMPORT_SESSION_LIMITS",
    "GAMES_IMPORT_IP_LIMITS",
    "GAMES_HINT_SESSION_LIMITS",
    "GAMES_HINT_IP_LIMITS",
    "GAMES_JUDGE_SESSION_LIMITS",
    "GAMES_JUDGE_IP_LIMITS",
    "GAMES_CHAT_SESSION_LIMITS",
    "GAMES_CHAT_IP_LIMITS",
    "GAMES_ENTRY_SESSION_LIMITS",
    "GAMES_ENTRY_IP_LIMITS",
    "GAMES_RATELIMIT_KEY_PREFIX",
):
    if _name in os.environ:
        globals()[_name] = env.str(_name)
for _name in (
    "GAMES_SOCKETS_PER_SESSION",
    "GAMES_SOCKETS_PER_IP",
    "GAMES_MAX_ACTIVE",
    "GAMES_ACTIVE_WINDOW_SECONDS",
    "GAMES_FULL_RETRY_SECONDS",
    "GAMES_OUTAGE_MIN_MS",
    "GAMES_IMPORT_KEEP_DAYS",
):
    if _name in os.environ:
        globals()[_name] = env.int(_name)
if "GAMES_RATELIMIT_ENABLED" in os.environ:
    GAMES_RATELIMIT_ENABLED = env.bool("GAMES_RATELIMIT_ENABLED")
