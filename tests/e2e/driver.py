"""Moved: the simulated players live in ``localdev/autoplay.py`` (the local playground seats them too).

Kept so existing imports (``from tests.e2e.driver import Driver, Policy``) keep working; new code
imports from ``localdev.autoplay``. ``LambdaTable`` is ``localdev.autoplay.WebhookTable``.
"""
from localdev.autoplay import Driver, FakeTelegramScreen, Mind, Policy, Screen, WebhookTable

LambdaTable = WebhookTable

__all__ = ["Driver", "FakeTelegramScreen", "LambdaTable", "Mind", "Policy", "Screen", "WebhookTable"]
