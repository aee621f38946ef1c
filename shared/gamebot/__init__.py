"""The bot around the engine: persistence, Telegram rendering and update handling."""
