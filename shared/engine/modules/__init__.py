"""Optional rules. Each file registers one module; ``engine.plugin.load_plugins`` imports them all."""
