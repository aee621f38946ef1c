"""Character cards. Each file registers one role (or a pair); ``engine.plugin.load_plugins`` imports them all."""
