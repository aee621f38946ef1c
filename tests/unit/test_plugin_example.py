"""The worked example of docs/ENGINE.md ("Adding a character"): the Squire of ``plugin_example`` is one
plug-in file and a few catalog entries, and with nothing else the settings panel offers it, validation
gives its declared advice, and a game with it plays to the end through the service.

The character is registered (and its catalog entries added) only for these tests, and forgotten after.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import GameConfig, GameState, Side, validate_config
from engine.plugin import ALL, register, unregister
from gamebot.language import texts
from gamebot.language.markup import plain
from gamebot.messages.settings import available_roles, issue_text
from gamebot.messages.table import Table
from gamebot.storage.session import Session, archive_key, chat_key
from tests.e2e.driver import Driver, Policy
from tests.reliability.support import set_settings
from tests.unit.audit_helpers import random_setup
from tests.unit.bigbox_helpers import oracle_cards
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen
from tests.unit.i18n_inventory import covering_setups, registered
from tests.unit.plugin_example.squire import Squire

HERE = Path(__file__).parent / "plugin_example"


@pytest.fixture
def squire(tmp_path):
    """The Squire registered, and the catalogs with its entries, for one test."""
    entries = json.loads((HERE / "catalog.json").read_text(encoding="utf-8"))
    for lang in texts.languages():
        doc = json.loads(Path(texts.LOCALES_DIR, f"{lang}.json").read_text(encoding="utf-8"))
        doc["messages"]["example"] = entries.get(lang, {})
        (tmp_path / f"{lang}.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    original = texts.LOCALES_DIR
    register(Squire)
    texts.reload(str(tmp_path))
    try:
        yield Squire
    finally:
        unregister(Squire.id)
        texts.reload(original)


def _texts(config: GameConfig, lang: str) -> list[str]:
    table = Table(chat_id=GROUP, game_id="g", lang=lang, theme=config.theme.value)
    return [plain(issue_text(table, i)) for i in validate_config(config)]


def test_the_squire_is_offered_and_advised_like_any_character(squire):
    assert "squire" in available_roles("avalon")
    assert "squire" not in available_roles("resistance")  # Avalon only: the default theme
    small = GameConfig(players=5, roles=("merlin", "assassin", "squire"))
    assert _texts(small, "en") == ["Recommended for 6 or more players: the Squire."]
    assert _texts(small, "fr") == ["À jouer de préférence à partir de 6 joueurs : l'Écuyer."]
    assert _texts(GameConfig(players=6, roles=("assassin", "squire")), "en") == [
        "Without Merlin the Assassin has no one to assassinate: they play as a Minion.",
        "The Squire serves Merlin: add Merlin.",
    ]
    assert validate_config(GameConfig(players=6, roles=("merlin", "assassin", "squire"))) == []


def test_a_game_with_the_squire_plays_through_the_service(squire):
    h = Harness()
    players = [1, 2, 3, 4, 5, 6]
    try:
        h.lobby(players)
        set_settings(h.repo, GROUP, "avalon", ["merlin", "assassin", "squire"], {})
        h.press_label(players[0], GROUP, "Start")
        driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(3)))
        for _ in range(2000):
            if Session.from_body(h.repo.items[chat_key(GROUP)].body).status == "ended":
                break
            if not (driver.step() or h.idle()):
                break
        session = Session.from_body(h.repo.items[chat_key(GROUP)].body)
        assert session.status == "ended"
        state = GameState.from_json(h.repo.items[archive_key(GROUP, session.last["game_id"])].body["state"])
    finally:
        h.close()
    seat = state.roles.index("squire")
    told = [k for k in state.knowledge[seat] if k.source == "squire"]
    assert len(told) == 1 and state.sides[told[0].seat].value == "good"
    cards = [t for uid in players for t in h.io.texts(uid) if "You are <b>the Squire</b>" in t]
    assert len(cards) == 1
    assert "one other Good player" in cards[0]  # its reminder (rolehelp.squire)
    assert ": Good (you learned it as the Squire)" in cards[0]  # what it learned (learned.squire)


def test_the_random_game_tests_pick_the_squire_up(squire):
    """The property tests and the i18n inventory read the registry: the Squire is drawn, played and its
    cards are the rulebook's for a Good character, without being listed anywhere."""
    assert "role=squire" in registered()
    assert any("squire" in c.roles for c in covering_setups())
    rng = random.Random(0)
    drawn = [c for c in (random_setup(rng) for _ in range(300)) if c is not None]
    assert any("squire" in c.roles for c in drawn)
    assert oracle_cards("squire", Side.GOOD, watched=False, messages_played=0) == {"success"}


def test_the_squire_is_forgotten_after_its_tests():
    assert "squire" not in ALL
    assert not texts.has("role.squire")
