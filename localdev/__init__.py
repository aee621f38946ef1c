"""Local development doubles: a fake Telegram Bot API server and Update builders."""
