"""Deterministic randomness derived from the seed stored in the state.

Every draw uses a fresh ``random.Random`` seeded from ``(seed, draw number)``, so a game replays
exactly from its seed and its action log, whatever happened in between.
"""
from __future__ import annotations

import random


def draw_rng(seed: int, counter: int) -> random.Random:
    return random.Random(f"{seed}/{counter}")
