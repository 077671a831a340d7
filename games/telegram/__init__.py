"""Telegram: the site as a Telegram Mini App, the bot's webhook and the players' notices
(README "Telegram", docs/telegram.md). Everything here is off without
``settings.TELEGRAM_BOT_TOKEN``: the URLs answer 404 and the pages show nothing of it.

- ``config``: whether it is on, the bot's token, links into Telegram.
- ``init_data``: the check of a Mini App's ``initData`` (Telegram's signature, its age).
- ``signin``: signs a Mini App's user in to the account of their Telegram sign-in.
- ``pages``: what a page opened inside Telegram gets (its script, CSP and framing).
- ``bot_api``: the Bot API client and its errors.
- ``webhook``: the answers to the bot's updates (/start, /play, a user blocking the bot).
- ``links``: the players' Telegram chats and their choice of notices.
- ``notices``: which turn, challenge and tournament notices to send, and sending them.
"""
