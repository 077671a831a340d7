"""Chat in a game (docs/protocol.md "Chat"): preset phrases for everyone, free text for
signed-in players, a player's mute of the opponent and reports for the staff. ``models`` (the
rows), ``presets`` (the phrases and who reads which message), ``chat`` (post, mute, report)."""
