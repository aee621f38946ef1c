"""What languages, statistics and pictures cost, measured side by side in one run and reported as ratios.

    .venv/bin/python scripts/bench_i18n.py                 # 5 repetitions, 5 games
    .venv/bin/python scripts/bench_i18n.py --reps 15 --games 20

* cold start: a fresh interpreter importing the webhook's modules, without and with Pillow (Pillow is
  imported only when a picture is drawn, so an ordinary cold start does not pay for it);
* whole 7-player games played through the service (in-memory repository, a Bot API double that
  answers at once): an ordinary button press against the press that ends a game (statistics read and
  written in its transaction, picture drawn);
* a catalog parsed on first use, and a 10-player picture drawn, against an ordinary press.

This is a benchmark, not a test: it asserts nothing about speed.
"""
from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT)]

from engine import GameConfig, actors, apply_action, new_game, public_view  # noqa: E402
from engine.policy import ai_seat_move  # noqa: E402
from gamebot.botapi.callbacks import Codec  # noqa: E402
from gamebot.botapi.telegram_io import Result  # noqa: E402
from gamebot.core.service import Service  # noqa: E402
from gamebot.language import texts  # noqa: E402
from gamebot.storage.effects import Budget  # noqa: E402
from gamebot.storage.store import FakeRepository  # noqa: E402
from gamebot.story import picture  # noqa: E402
from localdev import updates as U  # noqa: E402

GROUP = -1001000000001


class NullIO:
    """A Bot API double that answers every call at once (message ids count up)."""

    bot = None

    def __init__(self) -> None:
        self.next = 100
        self.msgs: dict[tuple[int, int], object] = {}

    async def run(self, outs):
        results = []
        for out in outs:
            if out.op in ("send", "photo"):
                self.next += 1
                self.msgs[(out.chat_id, self.next)] = out
                results.append(Result(out, True, self.next))
            else:
                if out.op == "edit" and (out.chat_id, out.message_id) in self.msgs:
                    self.msgs[(out.chat_id, out.message_id)] = out
                results.append(Result(out, True, out.message_id))
        return results

    async def is_admin(self, chat_id, user_id):
        return False


def median_ms(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def cold_import_ms(code: str, reps: int) -> float:
    argv = [sys.executable, "-c", f"import sys; sys.path[:0]=[{str(ROOT / 'shared')!r}, "
                                  f"{str(ROOT / 'functions' / 'webhook')!r}]; {code}"]
    return median_ms(lambda: subprocess.run(argv, check=True, capture_output=True), reps)


def finished_view(players: int, seed: int) -> dict:
    config = GameConfig(players=players, roles=("merlin", "assassin", "percival", "morgana"))
    state, _ = new_game(config, seed)
    rng = random.Random(seed)
    while not state.over:
        seat = rng.choice(actors(state))
        state, _ = apply_action(state, ai_seat_move(state, seat, rng))
    return public_view(state)


class Screen:
    """``tests.e2e.driver.Screen`` over :class:`NullIO`, timing each update the service handles."""

    def __init__(self, service: Service, io: NullIO, loop: asyncio.AbstractEventLoop) -> None:
        self.service, self.io, self.loop = service, io, loop
        self.steady: list[float] = []  # ms per button press that did not end the game
        self.final: list[float] = []  # ms for the press that ended it

    def send(self, update: dict) -> None:
        self.loop.run_until_complete(self.service.handle(update))

    def messages(self, chat_id: int) -> list[dict]:
        out = []
        for (chat, mid), o in sorted(self.io.msgs.items(), key=lambda kv: kv[0][1]):
            if chat == chat_id:
                buttons = [[{"text": b.text, "data": b.data, "url": b.url} for b in row] for row in (o.keyboard or [])]
                out.append({"message_id": mid, "text": o.text or "", "buttons": buttons})
        return out

    def press(self, user_id: int, chat_id: int, message_id: int, data: str) -> None:
        text = self.io.msgs[(chat_id, message_id)].text or ""
        update = U.press(U.user(user_id), U.message(chat_id, message_id, text), data)
        before = self.service.repo.get(f"chat#{GROUP}").body.get("status")
        start = time.perf_counter()
        self.send(update)
        ms = (time.perf_counter() - start) * 1000
        after = self.service.repo.get(f"chat#{GROUP}").body.get("status")
        (self.final if before == "playing" and after == "ended" else self.steady).append(ms)


def lobby_button(screen: Screen, label: str) -> tuple[int, str]:
    """The button ``label`` of the newest group message that has one (the lobby)."""
    return next((m["message_id"], b["data"]) for m in reversed(screen.messages(GROUP))
                for row in m["buttons"] for b in row if label in b["text"])


def play_games(games: int) -> Screen:
    from tests.e2e.driver import Driver, Policy

    io, loop = NullIO(), asyncio.new_event_loop()
    # no group budget: at this pace it holds edits back for a later wake-up, which this screen never
    # delivers (the driver would find no buttons); what is timed here is the press itself
    service = Service(FakeRepository(), io, Codec("1:bench"), bot_username="Bench", seeds=random.Random(1),
                      budget=Budget.per_minute(0))
    screen = Screen(service, io, loop)
    players = [1, 2, 3, 4, 5, 6, 7]
    for uid in players:
        screen.send(U.start(U.user(uid)))
    for game in range(games):
        io.msgs = {k: v for k, v in io.msgs.items() if k[0] != GROUP}  # a clean group screen per game
        screen.send(U.command(U.group(GROUP), U.user(1), "/newgame"))
        for uid in players[1:]:
            mid, data = lobby_button(screen, "Join")
            screen.send(U.press(U.user(uid), U.message(GROUP, mid, ""), data))
        mid, data = lobby_button(screen, "Start")
        screen.send(U.press(U.user(1), U.message(GROUP, mid, ""), data))
        Driver(screen, GROUP, players, Policy(rng=random.Random(game))).play()
    loop.close()
    return screen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--games", type=int, default=5)
    args = ap.parse_args()
    reps = args.reps

    base_runs, pil_runs = [], []
    for _ in range(max(reps, 7)):  # interleaved, so that a busy machine slows both alike
        base_runs.append(cold_import_ms("import app, gamebot.core.service", 1))
        pil_runs.append(cold_import_ms("import app, gamebot.core.service, PIL.Image, PIL.ImageDraw, PIL.ImageFont", 1))
    base, with_pil = statistics.median(base_runs), statistics.median(pil_runs)
    print(f"cold import of the webhook's modules: {base:.0f} ms; with Pillow as well: {with_pil:.0f} ms "
          f"(ratio {with_pil / base:.2f}; Pillow is imported only to draw a picture)")

    screen = play_games(args.games)
    steady, final = statistics.median(screen.steady), statistics.median(screen.final)
    print(f"{len(screen.steady)} button presses over {len(screen.final)} games (7 players): "
          f"median {steady:.1f} ms; the press that ends a game (statistics + picture): median {final:.0f} ms "
          f"= {final / steady:.0f} x")

    def parse_catalog() -> None:
        texts.reload()
        texts.catalog("fr")

    catalog = median_ms(parse_catalog, reps)
    texts.reload()
    view = finished_view(10, 5)
    last = {"status": "ended", "names": [f"Player {i}" for i in range(10)], "view": view}
    draw = median_ms(lambda: picture.render_png(last, "fr"), reps)
    print(f"parsing a catalog on first use: {catalog:.2f} ms = {catalog / steady:.2f} x a button press")
    print(f"drawing a 10-player game's picture: {draw:.0f} ms = {draw / steady:.0f} x a button press")


if __name__ == "__main__":
    main()
