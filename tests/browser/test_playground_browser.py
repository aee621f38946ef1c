"""The local playground in a real browser: headless Chromium (Debian's package) driven by Playwright.

The test opens the page, seats six players through the seating panel (one person, five simulated
players), and plays the person's seat by clicking the page's buttons until the game ends; the simulated
players play through the same webhook handler. The person's decisions come from ``localdev.autoplay.Driver`` reading the page
(:class:`PageScreen`), so every press is a real click. The person leads the first team: their first tap
on the team picker must show at once on the page (the ✅ mark, "Selected: ...", the count on Propose).
Screenshots go to ``artifacts/`` (``picker_after_one_tap.png``: the person's chat after that tap).

A second test seats three people from the panel (fewer than 5: the lobby's 🤖 fills the rest): the host opens
the game, the two others join, the host adds two AI seats with the lobby's 🤖 button and
starts; the game runs with five seats, two of them 🤖, until the bots have voted
(``artifacts/playground-3p2b.png``). The browser runs in a zone other than the server's (Asia/Kolkata,
+05:30): the time beside each message and a deadline ("until 14:32", Telegram's ``<tg-time>``) must both
be in the browser's zone.

Chromium (``PLAYGROUND_CHROMIUM``, default /usr/bin/chromium) missing is a failure (``scripts/test`` installs
it as root, else refuses to start: scripts/preflight); set ``PLAYGROUND_BROWSER=skip`` to skip this test on
a machine without it.
"""
from __future__ import annotations

import json
import random
import re
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from localdev.autoplay import Driver, Policy
from localdev.playground import GROUP_ID, Playground
from tests.browser.playground_server import served

pytestmark = pytest.mark.slow

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
MAX_ROUNDS = 4000  # safety bound on the test's own loop (not a timing assertion)
CLICK_TIMEOUT_MS = 20_000

READ_COLUMN = """(chat) => [...document.querySelectorAll(`section[data-chat="${chat}"] .msg`)].map((m) => {
  const text = m.querySelector('.text');
  return {
    message_id: Number(m.dataset.id),
    text: text ? text.innerText : '',
    html: text ? text.innerHTML : '',
    buttons: [...m.querySelectorAll('.kb-row')].map((row) => [...row.querySelectorAll('.kb-btn')].map(
      (b) => ({text: b.textContent, data: b.dataset.cb || null, url: null}))),
  };
})"""


# A toast's box against every chat's header and pinned bar: the names of those it covers.
TOAST_COVERS = """() => {
  const toast = document.querySelector('#toast');
  if (!toast || toast.hidden) return null;
  const t = toast.getBoundingClientRect();
  return [...document.querySelectorAll('.chat-head, .pinned')].filter((h) => {
    const r = h.getBoundingClientRect();
    return t.left < r.right && r.left < t.right && t.top < r.bottom && r.top < t.bottom;
  }).map((h) => h.innerText.split('\\n')[0]);
}"""
AT_BOTTOM = """(box) => box.scrollHeight - box.scrollTop - box.clientHeight < 4"""
NEXT_FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
# A picture's load makes the page scroll its list down; then, before the scroll event is seen, the list grows.
GROWS_UNDER_OWN_SCROLL = """(box) => {
  const grow = () => { const s = document.createElement("div"); s.className = "test-spacer"; s.style.flex = "0 0 300px";
                       box.append(s); };
  grow();
  box.querySelector("img.photo").dispatchEvent(new Event("load"));
  grow();
}"""


# The picker message on the page once a tap shows: the name marked ✅, named as selected, counted on Propose.
PICKER_SHOWS = """([selector, name]) => {
  const m = document.querySelector(selector);
  if (!m) return false;
  const labels = [...m.querySelectorAll('.kb-btn')].map((b) => b.textContent);
  const text = m.querySelector('.text');
  return labels.includes(`✅ ${name}`) && labels.some((l) => l.includes('Propose team (1/'))
    && !!text && text.innerText.includes(`Selected: ${name}`);
}"""


class PageScreen:
    """``localdev.autoplay.Screen`` over the page: reads the rendered chats, presses by clicking. Every toast
    a press shows is checked against the chats' headers (``covered``). The first tap on a team picker is
    followed until the page shows it (``picker``: the message then, its screenshot saved)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.clicks = 0
        self.toasts = 0
        self.covered: list[Any] = []
        self.picker: dict[str, Any] | None = None

    def messages(self, chat_id: int) -> list[dict[str, Any]]:
        return self.page.evaluate(READ_COLUMN, chat_id)

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> None:
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        message = f'section[data-chat="{chat_id}"] .msg[data-id="{message_id}"]'
        selector = f'{message} button[data-cb={json.dumps(data)}]'
        tapped = self._first_picker_tap(chat_id, message_id, data)
        try:  # the bots play on meanwhile: the button may be gone already, as for a person
            # Generous: a click dropped because a loaded CI machine was slow would leave the person's
            # vote uncast, and the game would stall (the bound on a missing button, not a timing check).
            self.page.click(selector, timeout=CLICK_TIMEOUT_MS)
        except PlaywrightTimeout:
            return
        self.clicks += 1
        self.page.wait_for_function("!document.querySelector('.keyboard.busy')")
        covers = self.page.evaluate(TOAST_COVERS)
        if covers is not None:
            self.toasts += 1
            if covers:
                self.covered.append(covers)
        if self.page.is_visible("#alert"):
            self.page.click("#alert-ok")
        if tapped is not None:  # the picker shows the tap (a bound on the wait, not a timing check)
            self.page.wait_for_function(PICKER_SHOWS, arg=[message, tapped], timeout=CLICK_TIMEOUT_MS)
            self.picker = next(m for m in self.messages(chat_id) if m["message_id"] == message_id)
            self.picker["tapped"] = tapped
            self.page.locator(f'section[data-chat="{chat_id}"]').screenshot(path=str(ARTIFACTS / "picker_after_one_tap.png"))

    def _first_picker_tap(self, chat_id: int, message_id: int, data: str) -> str | None:
        """The name about to be tapped, if this is the first tap on a team picker with nobody selected."""
        if self.picker is not None or chat_id <= 0:
            return None
        msg = next((m for m in self.messages(chat_id) if m["message_id"] == message_id), None)
        labels = [b for row in (msg or {}).get("buttons", []) for b in row]
        if not any("Propose team (0/" in b["text"] for b in labels):
            return None
        button = next((b for b in labels if b["data"] == data), None)
        return button["text"].removeprefix("▫️ ") if button and button["text"].startswith("▫️ ") else None


@pytest.fixture
def playground():
    pg = Playground(sim_delay=0, seed=5, group_budget=0)
    with served(pg) as url:
        yield pg, url


def _column_text(page: Any, chat_id: int) -> str:
    return page.inner_text(f'section[data-chat="{chat_id}"] .messages')


def _group_says(page: Any, command: str) -> None:
    """Send ``command`` in the group and wait for the bot's answer under it."""
    box = f'section[data-chat="{GROUP_ID}"] .messages'
    count = page.eval_on_selector_all(f"{box} .msg", "(els) => els.length")
    page.fill(f'section[data-chat="{GROUP_ID}"] .composer input[type=text]', command)
    page.press(f'section[data-chat="{GROUP_ID}"] .composer input[type=text]', "Enter")
    page.wait_for_function(f"document.querySelectorAll('{box} .msg').length >= {count + 2}")
    page.evaluate(NEXT_FRAMES)


def _follows_the_group_as_telegram_does(page: Any) -> None:
    """The group's list stays at its bottom once the end's picture has loaded and as answers come; scrolled
    up, it stays where the reader is and a marker says new messages are below."""
    box = f'section[data-chat="{GROUP_ID}"] .messages'
    page.wait_for_function("[...document.querySelectorAll('img.photo')].length > 0 && "
                           "[...document.querySelectorAll('img.photo')].every((i) => i.complete && i.naturalHeight > 0)")
    page.evaluate(NEXT_FRAMES)
    assert page.eval_on_selector(box, AT_BOTTOM)
    page.locator(f'section[data-chat="{GROUP_ID}"]').screenshot(path=str(ARTIFACTS / "playground-end-followed.png"))
    # The race CI once lost: the page scrolls down for a picture, and the list grows again before the browser
    # reports that scroll (the picture took its size). The late report must not read as the reader leaving.
    page.eval_on_selector(box, GROWS_UNDER_OWN_SCROLL)
    page.evaluate(NEXT_FRAMES)
    assert page.eval_on_selector(box, AT_BOTTOM)
    page.eval_on_selector_all(".test-spacer", "(els) => els.forEach((e) => e.remove())")
    page.evaluate(NEXT_FRAMES)
    _group_says(page, "/stats")
    assert page.eval_on_selector(box, AT_BOTTOM)
    assert not page.is_visible(f'section[data-chat="{GROUP_ID}"] .new-below')
    page.eval_on_selector(box, "(b) => { b.scrollTop = 0; }")
    page.evaluate(NEXT_FRAMES)
    _group_says(page, "/history")
    assert page.eval_on_selector(box, "(b) => b.scrollTop") == 0  # the reader's place is kept
    assert page.is_visible(f'section[data-chat="{GROUP_ID}"] .new-below')
    page.click(f'section[data-chat="{GROUP_ID}"] .new-below')
    page.wait_for_function(f"(() => {{ const b = document.querySelector('{box}'); "
                           "return b.scrollHeight - b.scrollTop - b.clientHeight < 4; })()")
    page.wait_for_selector(f'section[data-chat="{GROUP_ID}"] .new-below', state="hidden")


def test_a_person_plays_a_whole_game_with_simulated_players_in_the_browser(chromium, playground, monkeypatch):
    pg, url = playground
    ARTIFACTS.mkdir(exist_ok=True)
    # The person opens the game (seat 0) and leads the first team, through the engine's own choice of the
    # first Leader (recorded in the game's state): the picker is checked in every run, not only when the
    # draw makes the person a Leader before the game ends.
    from engine import new_game
    from gamebot.handlers import lobby

    monkeypatch.setattr(lobby, "new_game", lambda config, seed: new_game(config, seed, first_leader=0))
    page = chromium.new_page(viewport={"width": 1600, "height": 960})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    page.wait_for_selector(f'section[data-chat="{GROUP_ID}"]')

    # seat six players: the first is a person, the rest simulated; the person opens the game
    page.click("#seats-toggle")
    page.select_option("#seat-count", "6")
    rows = page.locator(".seat-row")
    assert rows.count() == 6
    rows.nth(0).locator("input").fill("Morgan")
    rows.nth(0).locator(".seat-kind").click()
    assert rows.nth(0).locator(".seat-kind").inner_text().endswith("Person")
    assert rows.nth(1).locator(".seat-lang").input_value() == ""  # by default a seat reads the group's language
    rows.nth(1).locator(".seat-lang").select_option("de")  # this simulated player's Telegram app speaks German
    page.screenshot(path=str(ARTIFACTS / "playground-seating.png"))
    page.click("#seat-go")
    page.wait_for_selector("text=New game of Avalon")
    person = next(s for s in pg.seats if not s.simulated)
    assert person.name == "Morgan" and sum(s.simulated for s in pg.seats) == 5
    assert [s.lang for s in pg.seats] == ["", "de", "", "", "", ""]
    page.wait_for_selector(f'section[data-chat="{person.user_id}"]')
    # a person is seated: the simulated players' private chats (their secret roles) are hidden, and the switch says so
    columns = page.eval_on_selector_all("section.chat", "(els) => els.map((e) => Number(e.dataset.chat))")
    assert columns == [GROUP_ID, person.user_id]
    assert not page.is_checked("#show-simulated")
    assert "secret roles" in page.inner_text("#show-simulated-label")

    screen = PageScreen(page)
    me = Driver(screen, GROUP_ID, [person.user_id], Policy(rng=random.Random(3)),
                names={s.user_id: s.name for s in pg.seats}, lobby=True, start_at=6)
    for _ in range(MAX_ROUNDS):
        if "Game over" in _column_text(page, GROUP_ID):
            break
        if not me.step():
            page.wait_for_timeout(50)
    group = _column_text(page, GROUP_ID)
    for _ in range(100):  # the board says "Game over" before the end message arrives: wait for it
        if all(f"{seat.name}: " in group.rpartition("Game over")[2] for seat in pg.seats):
            break
        page.wait_for_timeout(100)
        group = _column_text(page, GROUP_ID)
    page.screenshot(path=str(ARTIFACTS / "playground-game.png"))
    assert "Game over" in group, group[-2000:]
    assert screen.clicks > 3  # the person started the game and played their part by clicking
    for seat in pg.seats:  # the end screen reveals everyone's role
        assert f"{seat.name}: " in group.rpartition("Game over")[2]
    assert "Your secret role" in _column_text(page, person.user_id)
    assert set(pg.worker.statuses) == {200}  # every update went through lambda_handler and its secret check
    assert screen.toasts and screen.covered == []  # toasts never cover a chat's header
    # the person's first tap as Leader showed at once: the name marked, named as selected, counted
    assert screen.picker is not None, "the person never tapped a team picker"
    tapped = screen.picker["tapped"]
    labels = [b["text"] for row in screen.picker["buttons"] for b in row]
    assert f"✅ {tapped}" in labels and f"Selected: {tapped}" in screen.picker["text"]
    assert sum(label.startswith("✅ ") for label in labels) == 1
    assert any(label.startswith("✔️ Propose team (1/") for label in labels)
    assert (ARTIFACTS / "picker_after_one_tap.png").stat().st_size > 0
    _follows_the_group_as_telegram_does(page)
    assert errors == []

    # the person's own tab: the group and their private chat only
    tab = chromium.new_page(viewport={"width": 1100, "height": 900})
    tab.goto(f"{url}?as={person.user_id}")
    tab.wait_for_selector(f'section[data-chat="{person.user_id}"] .msg')
    columns = tab.eval_on_selector_all("section.chat", "(els) => els.map((e) => Number(e.dataset.chat))")
    assert columns == [GROUP_ID, person.user_id]
    assert "Game over" in _column_text(tab, GROUP_ID)
    tab.screenshot(path=str(ARTIFACTS / "playground-tab.png"))
    tab.close()
    page.close()


# ------------------------------------------------------------------------------------------------------
# three people and two AI seats, seated from the panel; one time zone on the page
# ------------------------------------------------------------------------------------------------------

# the lobby message on the page shows ``wanted`` (its text is redrawn when the bot edits it)
LOBBY_SHOWS = f"""(wanted) => [...document.querySelectorAll('section[data-chat="{GROUP_ID}"] .msg')]
  .some((m) => m.innerText.includes('New game of Avalon') && m.innerText.includes(wanted))"""
# every message on the page: its chat and id, the time beside it (".meta") and the moment that time says
# (its <time>); every deadline (<tg-time>) on the page
TIMES_SHOWN = """() => ({
  messages: [...document.querySelectorAll('section.chat .msg')].map((m) => {
    const when = m.querySelector('.meta time');
    return {chat: Number(m.closest('section.chat').dataset.chat), id: Number(m.dataset.id),
            meta: m.querySelector('.meta').textContent, unix: when ? Date.parse(when.dateTime) / 1000 : null};
  }),
  deadlines: [...document.querySelectorAll('time.tg-time')].map((t) => ({
    unix: Number(t.dataset.unix), text: t.textContent, line: t.parentElement.textContent})),
})"""


def _browser_zone() -> str:
    """A zone whose clock differs from this machine's (the server's): Asia/Kolkata (+05:30), unless that is
    this machine's offset."""
    return "America/St_Johns" if time.localtime().tm_gmtoff == 5 * 3600 + 1800 else "Asia/Kolkata"


def _one_zone(page: Any, pg: Playground, zone: str) -> None:
    """One zone on the page, the browser's (``zone``): the time beside each message is its date there, and a
    deadline (``<tg-time>``) is its moment there."""
    from zoneinfo import ZoneInfo

    page.wait_for_selector("time.tg-time", timeout=CLICK_TIMEOUT_MS)
    here = ZoneInfo(zone)

    def clock(unix: float) -> str:
        return datetime.fromtimestamp(unix, here).strftime("%H:%M")

    shown = page.evaluate(TIMES_SHOWN)
    sent = {(chat, m["message_id"]): m for chat in {m["chat"] for m in shown["messages"]}
            for m in pg.fake.messages(chat)}  # (read after the page: an edit made since is seen here)
    assert len(shown["messages"]) >= 3
    for m in shown["messages"]:
        message = sent[m["chat"], m["id"]]
        if not message.get("edit_date"):
            assert m["meta"] == clock(message["date"]), (m, message, zone)
            assert m["unix"] == message["date"], (m, message)
        else:  # its last edit's moment (maybe one edit before the newest: the page may not show that yet)
            assert m["unix"] is not None and message["date"] <= m["unix"] <= message["edit_date"], (m, message)
            assert m["meta"] in (clock(m["unix"]), "edited " + clock(m["unix"])), (m, message, zone)
    assert shown["deadlines"]
    for deadline in shown["deadlines"]:
        assert deadline["text"] == clock(deadline["unix"]), (deadline, zone)
        assert "UTC" not in deadline["line"]


def _ai_seats_voted(group: str) -> bool:
    """The vote's progress in the group names the bot's two players (🤖) among those who voted."""
    return any(line.count("🤖") == 2 for line in re.findall(r"^Voted \(\d+/\d+\):.*$", group, re.M))


@dataclass
class HoldTheirVotes(Driver):
    """Plays the people's part (the team picker, quest cards...) but never votes: the bots' votes show."""

    def _vote(self) -> bool:
        return False


class PeoplePage(PageScreen):
    """The page as a Screen for several people: a press in the group is made as its presser (the selector
    beside the group's message box says who acts there)."""

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> None:
        if chat_id == GROUP_ID:
            self.page.select_option(f'section[data-chat="{GROUP_ID}"] .composer select', str(user_id))
        super().press(user_id, chat_id, message_id, data)


def _zoned_page(chromium: Any, url: str, width: int) -> tuple[Any, list[str], str]:
    """A page in a zone other than the server's (en-GB: a 24-hour clock), its script errors collected."""
    zone = _browser_zone()
    page = chromium.new_page(viewport={"width": width, "height": 960}, timezone_id=zone, locale="en-GB")
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    return page, errors, zone


def test_three_people_add_two_ai_seats_from_the_lobby_in_one_time_zone(chromium, playground):
    pg, url = playground
    ARTIFACTS.mkdir(exist_ok=True)
    page, errors, zone = _zoned_page(chromium, url, 1600)
    page.wait_for_selector(f'section[data-chat="{GROUP_ID}"]')

    # the panel seats 1 to 10 people: three, all people; the host (the first) opens the game
    page.click("#seats-toggle")
    counts = page.eval_on_selector_all("#seat-count option", "(os) => os.map((o) => o.value)")
    assert counts == [str(n) for n in range(1, 11)], counts
    page.select_option("#seat-count", "3")
    rows = page.locator(".seat-row")
    assert rows.count() == 3
    for i, name in enumerate(("Morgan", "Riley", "Sasha")):
        rows.nth(i).locator("input").fill(name)
        rows.nth(i).locator(".seat-kind").click()
        assert rows.nth(i).locator(".seat-kind").inner_text().endswith("Person")
    page.click("#seat-go")
    page.wait_for_selector("text=New game of Avalon", timeout=CLICK_TIMEOUT_MS)
    assert [(s.name, s.simulated) for s in pg.seats] == [("Morgan", False), ("Riley", False), ("Sasha", False)]
    host, *others = pg.seats
    lobby = f'section[data-chat="{GROUP_ID}"] .msg:has-text("New game of Avalon")'
    page.wait_for_function(LOBBY_SHOWS, arg="Players (1/10)", timeout=CLICK_TIMEOUT_MS)

    # the two others join, each pressing Join in the group (the selector beside the box says who acts)
    actor = f'section[data-chat="{GROUP_ID}"] .composer select'
    for count, seat in enumerate(others, start=2):
        page.select_option(actor, str(seat.user_id))
        page.click(f'{lobby} button:has-text("Join")', timeout=CLICK_TIMEOUT_MS)
        page.wait_for_function(LOBBY_SHOWS, arg=f"Players ({count}/10)", timeout=CLICK_TIMEOUT_MS)
    # the host seats two AI seats with the lobby's 🤖 button, and starts
    page.select_option(actor, str(host.user_id))
    for count in (4, 5):
        page.click(f'{lobby} button:has-text("🤖 Add a bot")', timeout=CLICK_TIMEOUT_MS)
        page.wait_for_function(LOBBY_SHOWS, arg=f"Players ({count}/10)", timeout=CLICK_TIMEOUT_MS)
    shown = page.inner_text(lobby)
    for name in ("Morgan", "Riley", "Sasha", "🤖 Ada (bot)", "🤖 Bruno (bot)"):
        assert name in shown, shown
    page.wait_for_function("() => document.querySelector('#who').textContent.includes('2 🤖 seats of the bot')",
                           timeout=CLICK_TIMEOUT_MS)
    assert page.inner_text("#who").startswith("3 people, 0 simulated players")
    page.click(f'{lobby} button:has-text("Start")', timeout=CLICK_TIMEOUT_MS)
    page.wait_for_selector("text=The game begins", timeout=CLICK_TIMEOUT_MS)
    view = pg.seat_view(host.user_id)
    assert view is not None and view["players"] == 5  # three people and two 🤖
    assert pg.table_ai_seats() == 2

    # the people play their part by clicking (but hold their votes) until the bots, moving on the chat's
    # alarm, have voted: the vote's progress names them
    screen = PeoplePage(page)
    people = HoldTheirVotes(screen, GROUP_ID, [s.user_id for s in pg.seats], Policy(rng=random.Random(3)),
                            names={s.user_id: s.name for s in pg.seats})
    for _ in range(MAX_ROUNDS):
        if _ai_seats_voted(_column_text(page, GROUP_ID)):
            break
        if not people.step():
            page.wait_for_timeout(50)
    group = _column_text(page, GROUP_ID)
    assert _ai_seats_voted(group), group[-2000:]
    for name in ("🤖 Ada (bot)", "🤖 Bruno (bot)"):  # the page shows the bots' seats at the table
        assert name in group.rpartition("The game begins")[2]
    page.screenshot(path=str(ARTIFACTS / "playground-3p2b.png"))

    _one_zone(page, pg, zone)  # the browser's, for the time beside each message and for a deadline
    board = page.locator(f'section[data-chat="{GROUP_ID}"] .msg:has(time.tg-time)').last
    board.screenshot(path=str(ARTIFACTS / "playground-3p2b-deadline.png"))
    assert set(pg.worker.statuses) == {200} and errors == []
    page.close()


def test_message_times_and_deadlines_show_in_the_browsers_zone(chromium, playground):
    """The browser's zone differs from the server's: a message's time and a deadline are both in the browser's."""
    pg, url = playground
    ARTIFACTS.mkdir(exist_ok=True)
    page, errors, zone = _zoned_page(chromium, url, 1400)
    pg.seat([{"name": "Morgan", "simulated": False}, *({"name": n, "simulated": True} for n in ("Bob", "Carol", "Dave", "Erin"))])
    person = pg.seats[0]
    page.wait_for_selector("text=New game of Avalon", timeout=CLICK_TIMEOUT_MS)
    me = Driver(PageScreen(page), GROUP_ID, [person.user_id], Policy(rng=random.Random(3)),
                names={s.user_id: s.name for s in pg.seats}, lobby=True, start_at=5)
    for _ in range(MAX_ROUNDS):  # the person starts the game; a decision then shows its deadline
        if page.query_selector("time.tg-time") is not None:
            break
        if not me.step():
            page.wait_for_timeout(50)
    _one_zone(page, pg, zone)
    page.locator(f'section[data-chat="{GROUP_ID}"]').screenshot(path=str(ARTIFACTS / "playground-one-zone.png"))
    assert errors == []
    page.close()
