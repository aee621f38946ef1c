"""The playground in headless Chromium (issue 30): the host clicks the lobby's 🤖 button on the page to add
AI seats, as a host does on Telegram; the lobby lists them as bots, and once the game starts
they make their moves through the chat's alarm (the playground's local scheduler; its clock is moved on
instead of waiting seconds). Screenshots: ``artifacts/playground-ai-seats-lobby.png`` (the lobby with
four AI seats) and ``artifacts/playground-ai-seats-game.png`` (the game under way with them).

Chromium as for ``test_playground_browser.py`` (``PLAYGROUND_BROWSER=skip`` skips it)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from localdev.playground import GROUP_ID, Playground
from tests.browser.playground_server import served

pytestmark = pytest.mark.slow

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
CLICK_TIMEOUT_MS = 20_000  # a bound on a wait, not a timing assertion


@pytest.fixture
def playground():
    offset = [0.0]
    pg = Playground(sim_delay=0, seed=5, group_budget=0, timer_clock=lambda: time.time() + offset[0])
    with served(pg) as url:
        yield pg, url, offset


# the lobby message on the page shows ``arg`` (its text is redrawn when the bot edits it)
LOBBY_SHOWS = f"""(wanted) => [...document.querySelectorAll('section[data-chat="{GROUP_ID}"] .msg')]
  .some((m) => m.innerText.includes('New game of Avalon') && m.innerText.includes(wanted))"""


def _group_text(page: Any) -> str:
    return page.inner_text(f'section[data-chat="{GROUP_ID}"] .messages')


def test_the_host_adds_ai_seats_with_the_lobby_button_in_the_browser(chromium, playground):
    pg, url, offset = playground
    ARTIFACTS.mkdir(exist_ok=True)
    (person,) = pg.seat([{"name": "Morgan", "simulated": False}], open_lobby=True)
    page = chromium.new_page(viewport={"width": 1400, "height": 960})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.wait_for_selector("text=New game of Avalon")
    lobby = f'section[data-chat="{GROUP_ID}"] .msg:has-text("New game of Avalon")'
    for count in range(1, 5):
        page.click(f'{lobby} button:has-text("🤖 Add a bot")', timeout=CLICK_TIMEOUT_MS)
        page.wait_for_function(LOBBY_SHOWS, arg=f"Players ({count + 1}/10)", timeout=CLICK_TIMEOUT_MS)
    shown = page.inner_text(lobby)
    for name in ("🤖 Ada (bot)", "🤖 Bruno (bot)", "🤖 Clio (bot)", "🤖 Dario (bot)"):
        assert name in shown
    assert page.is_visible(f'{lobby} button:has-text("🤖 Remove a bot")')
    # the page's header counts the AI seats too (it said "1 person, 0 bots" beside four of them)
    page.wait_for_function("() => document.querySelector('#who').textContent.includes('4 🤖 seats of the bot')",
                           timeout=CLICK_TIMEOUT_MS)
    page.locator(f'section[data-chat="{GROUP_ID}"]').screenshot(path=str(ARTIFACTS / "playground-ai-seats-lobby.png"))
    page.click(f'{lobby} button:has-text("Start")', timeout=CLICK_TIMEOUT_MS)
    page.wait_for_selector("text=The game begins", timeout=CLICK_TIMEOUT_MS)
    # the bots move when the chat's alarm fires: a few seconds of the timers' clock later
    for _ in range(200):
        text = _group_text(page)
        if "Voted (" in text and "🤖" in text.rpartition("Voted (")[2].split("\n")[0]:  # (that line: who voted)
            break
        offset[0] += 5
        pg.scheduler.wake()
        if "Propose team" in page.inner_text(f'section[data-chat="{person.user_id}"] .messages'):
            break  # the person leads first: the bots wait for their team (their move is after it)
        page.wait_for_timeout(100)
    page.screenshot(path=str(ARTIFACTS / "playground-ai-seats-game.png"))
    assert "🤖 Ada (bot)" in _group_text(page)
    assert pg.scheduler.fired or "Propose team" in page.inner_text(f'section[data-chat="{person.user_id}"] .messages')
    assert set(pg.worker.statuses) == {200} and errors == []
