"""One name for the seats the bot plays itself: "AI seat" (``ai_seat``, ``ai_seats``, ``AiSeat...``,
``AI_SEAT...``); "bot" is the Telegram bot (and ``Player.bot``, a Telegram bot account that joined like a
person). The code of shared/, functions/, localdev/, scripts/ and tests/ names the AI seats by their old
names nowhere, but for the strings that are stored or on the wire (``ALLOWED``, each with its reason), and
what was stored or sent under the old names still loads.

Two more things were "bots" and are neither: the playground's simulated players (``localdev``: scripted
stand-ins for people, who press buttons like a person) are "simulated" (``Seat.simulated``,
``SimulatedPlayers``, ``sim_delay``, ``--sim-delay``, the page's ``simulated``), and the AI seats' policy
that the engine's tests and benchmark play (``play_game(policy=...)``, ``bench_engine.py --policy``) is
"ai_seats". The same scan finds their old names (``SIMULATED_OLD``).

Out of scope: what players read ("🤖 Ada (bot)", "Add a bot")."""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from engine import GameConfig, actors, new_game
from engine.policy import ai_seat_move
from gamebot.botapi import buttons
from gamebot.botapi.buttons import AddAiSeat, RemoveAiSeat
from gamebot.botapi.callbacks import Codec
from gamebot.scores import stats
from gamebot.storage.seats import AiSeatTurn, ai_seat_id
from gamebot.storage.session import Session
from tests.helpers import POLICIES, next_action, play_game

ROOT = Path(__file__).resolve().parents[2]
TOPS = ("shared", "functions", "localdev", "scripts", "tests")
SKIP = {"__pycache__", ".venv", "node_modules"}
THIS = Path(__file__).resolve()  # (holds the old names, as patterns and as stored data)

OLD_NAMES = [
    r"(?:\b|_)bots?_(?:seats?|turns?|moves?|ids?|games|players|delays|number|count)(?:\b|_)",
    r"\bBOT_BASE\b", r"\b(?:MAX|MIN)_BOTS\b", r"\bMIN_HUMANS_WITH_BOTS\b", r"\bDEFAULT_BOTS\b",
    r"\bBotTurn\b", r"\b(?:Add|Remove)Bot\b", r"\bhandlers[./]bots\b", r"from gamebot\.handlers import .*\bbots\b",
    r"\bwaiting_bots\b", r"\btable_bots\b", r"\b(?:add|remove|seat)_bots?\b", r"\buntil_bots\b", r"\bbench_bots\b",
    r"\b_bots_(?:moves|voted)\b", r"\b_bot_leader\b",
    r"[\"'`](?:bots\.(?:names|name|full|added|removed|in_game|none|forged)|stats\.(?:user_)?bots)\b",
]
OLD = re.compile("|".join(f"(?:{p})" for p in OLD_NAMES))

SIMULATED_OLD_NAMES = [
    r"\bbot_delay\b", r"(?:\b|_)BOT_DELAY\b", r"--bot-delay\b", r"\bBotPlayers\b", r"\bshow(?:Bots|BotChats)\b",
    r"\bshow-bots\b", r"\b(?:s|seat|chat|dataset)\.bot\b", r"\b(?:pg|playground)\.bots\b", r"\.get\([\"']bot[\"']\)",
    r"[\"']?\bbot[\"']?\s*:\s*(?:true|false|True|False|i\s*[<>]|bool\(|[sp]\.bot\b)",  # a seat's flag
    # the AI seats' policy, as a value: given as a policy, compared, or listed or chosen beside "random"
    r"\bpolicy\b.*[\"']bots[\"']", r"==\s*[\"']bots[\"']", r"\bnext_action\(.*[\"']bots[\"']", r"\belse\s+[\"']bots[\"']",
    r"[\"']bots[\"']\s*(?:,\s*[\"'](?:bots|random)[\"']|if\b)",
]
SIMULATED_OLD = re.compile("|".join(f"(?:{p})" for p in SIMULATED_OLD_NAMES))
OLD_IN_PAGE = re.compile(r"\b\w+\.bot\b(?!\.)")  # (.js/.html: a player's flag; ``state.bot.name`` is the bot's)

# (path, what the line holds, why it stays)
ALLOWED = [
    ("shared/gamebot/storage/session.py", 'alias="bot_turn"',
     "Session.ai_seat_turn's stored key: items written by the deployed versions hold it"),
    ("shared/gamebot/scores/stats.py", 'AI_SEAT_GAMES = "bot_games"', "a statistics item's stored key"),
    ("shared/gamebot/scores/stats.py", 'AI_SEATS_PLAYED = "bot_seats"', "a group statistics item's stored key"),
    ("functions/setup_webhook/app.py", "bot_id(", "the Telegram bot's own id (from its token), not an AI seat"),
    ("scripts/set_webhook.py", "setup.bot_id(", "the Telegram bot's own id (from its token), not an AI seat"),
    ("scripts/read_chat.py", '{"bot": True} if p.bot', "Player.bot (a Telegram bot account) in the chat's dump"),
    ("localdev/playground.py", "PLAYGROUND_BOT_DELAY", "PLAYGROUND_SIM_DELAY's former name, still read"),
    ("localdev/playground.py", 'ap.add_argument("--bot-delay", dest="sim_delay"', "--sim-delay's former name, still accepted"),
    ("tests/integration/test_playground.py", 'former_option, former_variable = ("--bot-delay", "PLAYGROUND_BOT_DELAY")',
     "the test that --sim-delay's former names still work"),
    ("scripts/bench_staleness.py", 'getattr(s, "bot_turn", None)', "the benchmark's before tree predates the AI seats' name"),
    ("scripts/bench_engine.py", 'name == "bots"', "--policy ai_seats's former value, still accepted"),
]


def code_files() -> list[Path]:
    found = []
    for top in TOPS:
        for path in (ROOT / top).rglob("*"):
            if SKIP & set(path.parts) or not path.is_file() or path.resolve() == THIS:
                continue
            if path.suffix in {".py", ".js", ".html"} or (path.parent.name == "scripts" and not path.suffix):
                found.append(path)
    return sorted(found)


def old_names(path: Path, text: str, old: re.Pattern[str] = OLD) -> list[str]:
    rel = path.relative_to(ROOT).as_posix()
    page = path.suffix in {".js", ".html"}
    hits = []
    for number, line in enumerate(text.splitlines(), 1):
        found = old.search(line) or (old is SIMULATED_OLD and page and OLD_IN_PAGE.search(line))
        if found and not any(rel == where and held in line for where, held, _ in ALLOWED):
            hits.append(f"{rel}:{number}: {line.strip()}")
    return hits


def test_the_code_names_the_ai_seats_by_one_name():
    hits = [hit for path in code_files() for hit in old_names(path, path.read_text(encoding="utf-8"))]
    assert not hits, "an old name of the AI seats (rename it, or allow a stored/wire string with its reason):\n" + "\n".join(hits)


def test_the_code_names_the_simulated_players_and_the_ai_seats_policy_by_one_name():
    hits = [hit for path in code_files() for hit in old_names(path, path.read_text(encoding="utf-8"), SIMULATED_OLD)]
    assert not hits, ("an old name of the playground's simulated players or of the AI seats' policy (rename it to "
                      "simulated/sim_delay/ai_seats, or allow a former name still accepted, with its reason):\n"
                      + "\n".join(hits))


def test_no_file_is_named_by_an_old_name():
    old = re.compile(r"bot_seats|bots_browser|bench_bots|test_bot_policy|test_bot_brackets|handlers/bots\.py")
    assert not [p for p in code_files() if old.search(p.relative_to(ROOT).as_posix())]


def test_no_catalog_key_names_the_ai_seats_by_an_old_name():
    key = re.compile(r"^(?:bots\.|stats\.(?:user_)?bots$|lobby\.button\.(?:add|remove)_bot$)")

    def keys(node: object) -> list[str]:  # (and the keys a catalog lists, as "same_as_english" does)
        if isinstance(node, list):
            return [k for v in node for k in ([v] if isinstance(v, str) and key.match(v) else keys(v))]
        if not isinstance(node, dict):
            return []
        return [k for k, v in node.items() for k in ([k] if key.match(k) else []) + keys(v)]

    for catalog in sorted((ROOT / "shared/gamebot/language/locales").glob("*.json")):
        assert keys(json.loads(catalog.read_text(encoding="utf-8"))) == [], catalog.name
        assert "ai_seats.name" in catalog.read_text(encoding="utf-8")


def test_the_scan_finds_the_old_names_and_leaves_the_telegram_bot_alone():
    old_code = [
        "from gamebot.storage.seats import BOT_BASE, MAX_BOTS, BotTurn, bot_seats, free_bot_id, is_bot_id",
        "from gamebot.handlers import bots, nextgame", "s.bot_turn = None", "action = bot_move(state, seat, rng)",
        'if body.get("bot_games"):', "AddBot: lambda deps: bots.add_bot(deps)", 'texts.t("bots.names", lang)',
        "def test_a_bot_turn_s_wake_up_delivered_twice_plays_it_once(h):", "from tests.bot_seats_helpers import x",
        "MIN_HUMANS_WITH_BOTS = 2", "seat_bots(h, 1, 2)", "bump(body, \"bot_seats\", len(o.bots))",
    ]
    assert [line for line in old_code if not OLD.search(line)] == []
    telegram = ["deps.bot_username", "TELEGRAM_BOT_TOKEN", "from gamebot.botapi import bot_name", "Player.bot",
                "user.is_bot", "telegram.Bot", "lobby.button.open_bot", "self.io.bot", "call_bot_api(x)"]
    assert [line for line in telegram if OLD.search(line)] == []
    allowed = ROOT / ALLOWED[0][0]
    assert old_names(allowed, 'x: int = Field(alias="bot_turn")\ny = "bot_turn"') == [
        'shared/gamebot/storage/session.py:2: y = "bot_turn"']  # (allowed on its own line only)


def test_the_scan_finds_the_simulated_players_and_the_policy_by_their_old_names():
    old_code = [  # (as they were before issue 38's renaming)
        "DEFAULT_BOT_DELAY = 0.6", "class BotPlayers:", "self.bots: BotPlayers | None = None", "delay = self.pg.bot_delay",
        'with Playground(bot_delay=0, seed=2, group_budget=0) as playground:', "pg.bots.driver.views = views",
        'seats.append(Seat(uid, name, bool(p.get("bot")), lang))', "host = next((s for s in seats if not s.bot), seats[0])",
        'return [{"name": U.NAMES[i % len(U.NAMES)], "bot": i >= humans} for i in range(players)]',
        'pg.seat([{"name": n, "bot": True} for n in names], open_lobby=False)',
        'entry: JSON = {"id": s.user_id, "name": s.name, "bot": s.bot, "lang": s.lang,',
        'ap.add_argument("--bot-delay", type=float, default=_env_float("PLAYGROUND_BOT_DELAY", DEFAULT_BOT_DELAY))',
        'env = dict(os.environ, PLAYGROUND_BOT_DELAY="5")', 'assert not page.is_checked("#show-bots")',
        "const showBots = showBotChats(data);", 'kind.dataset.bot = seat.bot ? "1" : "";',
        'const badge = el("span", chat.bot ? "badge bot" : "badge person");',
        'api("/api/speed", { bot_delay: Number(speed.value) })', "rows.append(seatRow(i, seats[i] || { name: NAMES[i], bot: true }));",
        'def play_game(config: GameConfig, seed: int, policy: str = "bots", max_actions: int = 3000) -> PlayedGame:',
        'if policy == "bots":', 'policy=st.sampled_from(["bots", "random"])', 'check_game(config, seed, "bots" if seed % 2 else "random")',
        'ap.add_argument("--policy", choices=["bots", "random"], default="bots")',
    ]
    assert [line for line in old_code if not SIMULATED_OLD.search(line)] == []
    assert old_names(ROOT / "localdev/static/app.js", "const people = data.players.filter((p) => !p.bot);", SIMULATED_OLD)
    telegram = [  # the Telegram bot, its user and the accounts that are bots: not simulated players
        "self.bot = dict(bot or BOT)", 'if user_id == self.bot["id"]:', '"is_bot": False', 'user.is_bot',
        '"bot": {"name": self.fake.bot.get("first_name", ""), "username": self.bot_username},',
        "humans = sum(1 for seat, p in enumerate(s.players) if not p.bot and seat not in seats_ai)",
        "self.bot_user = dict(self.fake.bot)", "TELEGRAM_BOT_TOKEN", "bump(body, AI_SEATS_PLAYED, 1)",
        'o.data()["bots"]', '"setup": self.setup, "people": len(self.people), "bots": self.bots,',
        'OUTCOME_AI_SEATS = "bots"', '@pytest.mark.parametrize("bots", [6, 9])',  # (AI seats' stored key, count)
    ]
    assert [line for line in telegram if SIMULATED_OLD.search(line)] == []
    page = ROOT / "localdev/static/app.js"
    assert old_names(page, "sub.textContent = `private chat with ${state.bot.name} `;", SIMULATED_OLD) == []


# --- what was stored or sent under the old names still works ---------------------------------------


def test_a_chat_item_written_with_bot_turn_loads_and_is_written_back_the_same():
    body = {"chat_id": -100, "bot_turn": {"serial": 4, "step": "vote", "due": 1_700_000_002.5}}
    s = Session.from_body(body)
    assert s.ai_seat_turn == AiSeatTurn(serial=4, step="vote", due=1_700_000_002.5)
    written = s.body()
    assert written["bot_turn"] == body["bot_turn"] and "ai_seat_turn" not in written  # what deployed versions read
    assert Session(chat_id=1, ai_seat_turn=s.ai_seat_turn).body()["bot_turn"] == body["bot_turn"]


def test_a_stored_stats_effect_with_bots_counts_its_ai_seats():
    stored = {"chat_id": -100, "game_id": "g", "theme": "avalon", "winner": "good", "user_ids": [1, 2, ai_seat_id(1)],
              "names": ["A", "B", "🤖 Ada (bot)"], "roles": ["merlin", "servant", "assassin"],
              "sides": ["good", "good", "evil"], "winners": [0, 1], "bots": [2]}
    o = stats.Outcome.of(stored)
    assert o.ai_seats == [2] and stats.people(o) == [(0, 1), (1, 2)]
    assert o.data()["bots"] == [2] and "ai_seats" not in o.data()  # written as before
    assert stats.Outcome.of(o.data()) == o
    body: dict[str, object] = {}
    assert stats.add_to_chat(body, o)
    assert body["bot_games"] == 1 and body["bot_seats"] == 1  # the items' stored keys, as /stats reads them
    assert (stats.AI_SEAT_GAMES, stats.AI_SEATS_PLAYED, stats.OUTCOME_AI_SEATS) == ("bot_games", "bot_seats", "bots")


def test_the_lobby_buttons_already_in_chats_decode_to_the_ai_seat_operations():
    codec = Codec("token")
    for code, op in (("b", AddAiSeat()), ("u", RemoveAiSeat())):  # what the lobby's 🤖 buttons carried before
        pressed = buttons.decode(codec, codec.encode("L", -100, "g1", 0, code))
        assert pressed.op == op and (pressed.chat_id, pressed.game_id) == (-100, "g1")
        assert op.encode(codec, -100, "g1") == codec.encode("L", -100, "g1", 0, code)  # and still carry


def test_the_engine_tests_play_the_ai_seats_policy_by_its_name_and_refuse_the_old_one():
    """``next_action``/``play_game``: "ai_seats" plays ``engine.policy.ai_seat_move``; the policy's old name
    "bots" is refused, not played as random moves (a test still passing it would test something else)."""
    config = GameConfig(players=5, roles=("merlin", "assassin"))
    state, _ = new_game(config, 7)
    assert POLICIES == ("ai_seats", "random")
    ours, theirs = random.Random(3), random.Random(3)
    assert next_action(state, ours, "ai_seats") == ai_seat_move(state, theirs.choice(actors(state)), theirs)
    for old in ("bots", "bot"):
        with pytest.raises(ValueError, match="unknown policy"):
            next_action(state, random.Random(3), old)
        with pytest.raises(ValueError, match="unknown policy"):
            play_game(config, 7, policy=old)
    assert play_game(config, 7).final.over  # (the AI seats' policy by default, to the end)
