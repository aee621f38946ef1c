"""The vote history asked for while a vote is open, in the playground in a real browser (headless
Chromium, Debian's package, driven by Playwright as in ``test_playground_browser.py``).

One person and four simulated players sit at the table; the person plays their part by clicking until the first vote
is open and the bots have voted, then presses the board's 📜 button instead of voting. The picture
arrives in their private chat; it is saved to ``artifacts/history_mid_vote.png`` (and the page to
``artifacts/history_mid_vote_page.png``). The picture must show the vote as open: no approval or
rejection in its "Vote" row.

Chromium missing is a failure (CI installs it in .ci/run); ``PLAYGROUND_BROWSER=skip`` skips this test.
"""
from __future__ import annotations

import io
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from localdev.autoplay import Driver, Policy
from localdev.playground import GROUP_ID, Playground
from tests.browser.playground_server import served

pytestmark = pytest.mark.slow

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
MAX_STEPS = 4000  # a bound on the test's own loop (not a timing assertion)
CLICK_TIMEOUT_MS = 20_000  # a bound on a button that never comes (not a timing assertion)

# The messages of one chat column as ``localdev.autoplay.Screen`` reads them.
MESSAGES = """(chat) => [...document.querySelectorAll(`section[data-chat="${chat}"] .msg`)].map((m) => ({
  message_id: Number(m.dataset.id),
  text: m.querySelector('.text') ? m.querySelector('.text').innerText : '',
  buttons: [...m.querySelectorAll('.kb-row')].map((row) => [...row.querySelectorAll('.kb-btn')].map(
    (b) => ({text: b.textContent, data: b.dataset.cb || null, url: null}))),
}))"""


class Page:
    """The page as a ``localdev.autoplay.Screen``: chats read from the page, presses are clicks."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def messages(self, chat_id: int) -> list[dict[str, Any]]:
        return self.page.evaluate(MESSAGES, chat_id)

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> None:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        selector = f'section[data-chat="{chat_id}"] .msg[data-id="{message_id}"] button[data-cb={json.dumps(data)}]'
        try:  # the bots play on meanwhile: the button may be gone already, as for a person
            self.page.click(selector, timeout=CLICK_TIMEOUT_MS)
        except PlaywrightTimeout:
            return
        self.page.wait_for_function("!document.querySelector('.keyboard.busy')")
        if self.page.is_visible("#alert"):
            self.page.click("#alert-ok")


@dataclass
class HoldsTheirVote(Driver):
    """Plays the person's part (the lobby, the team picker, quest cards...) but never votes."""

    def _vote(self) -> bool:
        return False


@pytest.fixture
def playground():
    pg = Playground(sim_delay=0, seed=7, group_budget=0)
    with served(pg) as url:
        yield pg, url


def _waiting_for_my_vote(pg: Playground, user_id: int) -> bool:
    """The vote is open, every bot has voted, and the person has not."""
    view = pg.seat_view(user_id)
    if not view or view.get("stage") != "vote":
        return False
    return view["you"].get("vote") is None and len(view.get("voted") or []) == view["players"] - 1


def _board_button(screen: Page, label: str) -> tuple[int, str]:
    for msg in reversed(screen.messages(GROUP_ID)):
        for row in msg["buttons"]:
            for b in row:
                if label in b["text"] and b["data"]:
                    return msg["message_id"], b["data"]
    raise AssertionError(f"no {label!r} button in the group")


def test_the_history_asked_for_during_a_vote_shows_the_vote_open(chromium: Any, playground: Any) -> None:
    from PIL import Image

    from gamebot.story import picture_draw, picture_layout

    pg, url = playground
    ARTIFACTS.mkdir(exist_ok=True)
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.wait_for_selector(f'section[data-chat="{GROUP_ID}"]')
    page.click("#seats-toggle")
    page.select_option("#seat-count", "5")
    rows = page.locator(".seat-row")
    rows.nth(0).locator("input").fill("Morgan")
    rows.nth(0).locator(".seat-kind").click()
    page.click("#seat-go")
    page.wait_for_selector("text=New game of Avalon")
    person = next(s for s in pg.seats if not s.simulated)
    screen = Page(page)
    me = HoldsTheirVote(screen, GROUP_ID, [person.user_id], Policy(rng=random.Random(3)),
                        names={s.user_id: s.name for s in pg.seats}, lobby=True, start_at=5)
    for _ in range(MAX_STEPS):
        if _waiting_for_my_vote(pg, person.user_id):
            break
        if not me.step():
            page.wait_for_timeout(50)
    assert _waiting_for_my_vote(pg, person.user_id), "the person never had a vote to cast"

    chat = f'section[data-chat="{person.user_id}"]'
    before = page.eval_on_selector_all(f"{chat} img.photo", "(els) => els.length")
    message_id, data = _board_button(screen, "Vote history")
    screen.press(person.user_id, GROUP_ID, message_id, data)
    page.wait_for_function(f"[...document.querySelectorAll('{chat} img.photo')].length > {before} && "
                           f"[...document.querySelectorAll('{chat} img.photo')].every((i) => i.complete && i.naturalHeight > 0)")
    src = page.eval_on_selector_all(f"{chat} img.photo", "(els) => els[els.length - 1].getAttribute('src')")
    png = pg.file(src.rsplit("/", 1)[1])
    assert png is not None and png.startswith(b"\x89PNG")
    (ARTIFACTS / "history_mid_vote.png").write_bytes(png)
    page.locator(f"{chat} img.photo").last.scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "history_mid_vote_page.png"))

    assert "vote history so far" in page.inner_text(f"{chat} .messages")  # the caption, in the private chat
    assert _waiting_for_my_vote(pg, person.user_id)  # the vote was still open when it was drawn
    img = Image.open(io.BytesIO(png)).convert("RGB")
    y = int(picture_layout.plan(5, [], 184).outcome_top + picture_layout.CELL / 2)  # the "Vote" row
    row = [img.getpixel((x, y)) for x in range(img.width)]
    assert picture_draw.REJECT not in row and picture_draw.APPROVE not in row  # no result drawn
    assert row.count(picture_draw.MUTED) > 10  # the open vote's mark
    assert errors == []
    page.close()
