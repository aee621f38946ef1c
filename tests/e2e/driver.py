"""Moved: the simulated players live in ``localdev/autoplay.py`` (the local playground seats them too).

Kept so existing imports (``from tests.e2e.driver import Driver, Policy``) keep working; new code
imports from ``localdev.autoplay``. ``LambdaTable`` is ``localdev.autoplay.WebhookTable``.
"""
from localdev.autoplay import (
    ENGLISH,
    FRENCH,
    Driver,
    FakeTelegramScreen,
    Mind,
    Policy,
    Screen,
    WebhookTable,
    Words,
)

LambdaTable = WebhookTable

__all__ = [
    "ENGLISH", "FRENCH", "Driver", "FakeTelegramScreen", "LambdaTable", "Mind", "Policy", "Screen", "WebhookTable",
    "Words",
]
