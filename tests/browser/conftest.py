"""Fixtures of the browser tests: the local playground's page in Debian's Chromium, headless, driven by
Playwright (each test module starts its own playground on 127.0.0.1)."""
from __future__ import annotations

import os

import pytest

CHROMIUM = os.environ.get("PLAYGROUND_CHROMIUM") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="module")
def chromium():
    """Debian's Chromium, headless, driven by Playwright (the playground's browser tests). Per module, not
    per session: Playwright's sync API keeps its event loop running while it is open, and the webhook's
    own loop (the other tests) then refuses to run ("another loop is running")."""
    if os.environ.get("PLAYGROUND_BROWSER") == "skip":
        pytest.skip("PLAYGROUND_BROWSER=skip")
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (scripts/test installs it as root)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
