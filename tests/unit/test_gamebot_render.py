"""Rendering: group messages carry only public information; any prompt renders from its fields."""
from __future__ import annotations

import random

import pytest

from engine import Event, GameConfig, Prompt, Theme, apply_action, new_game, public_view, view
from engine.bots import choose_action
from engine.game import actors
from gamebot import render
from gamebot.callbacks import MAX_BYTES, Codec
from gamebot.render import Table
from gamebot.service import Service
from gamebot.session import PLAYING, Player, Session
from gamebot.store import FakeRepository
from tests.helpers import scrambled
from tests.unit.gamebot_fakes import RecordingIO

GROUP = -1001000000001
CODEC = Codec("123456:TOKEN")
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"]
ROLE_WORDS = ["Merlin", "Percival", "Morgana", "Mordred", "Oberon", "Assassin", "Minion", "Servant", "Spy", "Evil (", "Good ("]

CONFIGS = [
    GameConfig(players=5, roles=("merlin", "assassin")),
    GameConfig(players=7, roles=("merlin", "assassin", "percival", "morgana"), options={"lady_of_the_lake": True}),
    GameConfig(players=8, roles=("merlin", "assassin", "percival", "morgana", "oberon"), options={"targeting": True}),
    GameConfig(players=10, roles=("merlin", "assassin", "percival", "morgana", "mordred", "oberon"),
               options={"lady_of_the_lake": True}),
    GameConfig(theme=Theme.RESISTANCE, players=6, roles=(), options={"blind_spies": True}),
]


def _session(state) -> Session:
    return Session(
        chat_id=GROUP, title="Test group", game_id="abc123", status=PLAYING, state=state.to_json(),
        players=[Player(id=1000 + i, name=NAMES[i]) for i in range(state.n)], board_msg=1, vote_msg=2,
    )


def _group_outs(service: Service, session: Session, before, after, events):
    outs = service._game_outs(session.model_copy(deep=True), before, after, events, ("vote", 2))
    return [(o.op, o.message_id, o.text, o.keyboard) for o in outs if o.chat_id == GROUP]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.theme.value}-{c.players}")
def test_group_messages_do_not_change_when_every_secret_changes(config):
    """Scramble every role, side, knowledge, vote and card: the group must see exactly the same."""
    service = Service(FakeRepository(), RecordingIO(), CODEC, bot_username="TestBot")
    rng = random.Random(config.players)
    state, events = new_game(config, seed=config.players * 13)
    session = _session(state)
    assert _group_outs(service, session, None, state, events) == _group_outs(
        service, session, None, scrambled(state, None, rng), events
    )
    steps = 0
    while not state.over and steps < 400:
        seat = rng.choice(actors(state))
        action = choose_action(state, seat, rng)
        new, events = apply_action(state, action)
        real = _group_outs(service, session, state, new, events)
        fake = _group_outs(service, session, scrambled(state, None, rng), scrambled(new, None, rng), events)
        assert real == fake
        if not new.over:
            for _, _, text, _ in real:
                assert not any(word in (text or "") for word in ROLE_WORDS if "Merlin" not in (text or "")), text
        state, steps = new, steps + 1
    assert state.over


def _table(n: int = 5, theme: str = "avalon") -> Table:
    return Table(chat_id=GROUP, game_id="abc123", title="T", theme=theme, names=NAMES[:n],
                 user_ids=list(range(1000, 1000 + n)), bot_username="TestBot")


def test_a_prompt_from_a_new_plugin_renders_from_its_fields():
    prompt = Prompt(kind="plot_spy_glass", seat=0, pick=2, targets=[1, 2, 3], choices=["left", "right"],
                    optional=True, info={"holder": 2, "quest": 1}).model_dump()
    text, kb = render.private_prompt(_table(), prompt, CODEC, serial=17, sel={"targets": [1]}, pv=None)
    labels = [b.text for row in kb for b in row]
    assert "Plot spy glass" in text and "Carol" in text  # the name and the info, seats as names
    assert any("Bob" in label and label.startswith("✅") for label in labels)
    assert any("Dave" in label and label.startswith("▫️") for label in labels)
    assert "Left" in labels and "Right" in labels
    assert any("Confirm (1/2)" in label for label in labels)
    assert any("Pass" in label for label in labels)
    assert all(len(b.data.encode()) <= MAX_BYTES for row in kb for b in row)


def test_a_single_pick_prompt_answers_with_one_press():
    prompt = Prompt(kind="lady", seat=0, pick=1, targets=[1, 2]).model_dump()
    assert render.prompt_mode(prompt) == "immediate"
    text, kb = render.private_prompt(_table(), prompt, CODEC, serial=3)
    assert [b.text for row in kb for b in row] == ["Bob", "Carol"]
    assert "Lady of the Lake" in text


def test_quest_prompt_offers_only_the_cards_the_engine_allows():
    prompt = Prompt(kind="play", seat=1, choices=["success"], info={"quest": 0}).model_dump()
    _, kb = render.private_prompt(_table(), prompt, CODEC, serial=9)
    assert [b.text for row in kb for b in row] == ["✅ Success"]
    _, kb = render.private_prompt(_table(theme="resistance"), prompt, CODEC, serial=9)
    assert [b.text for row in kb for b in row] == ["✅ Mission Success"]


def test_unknown_public_events_are_announced_generically_with_names():
    lines = render.announcements(_table(), [Event(type="BlackKnightRode", data={"holder": 1, "target": 3, "quest": 2})])
    assert lines == ["ℹ️ Black knight rode\n   Holder: Bob\n   Target: Dave\n   Quest: 3"]


def test_private_events_never_reach_the_group_renderer():
    secret = Event(type="LoyaltySeen", to=(0,), data={"seat": 1, "side": "evil"})
    assert render.announcements(_table(), [secret]) == []
    assert render.private_events(_table(), [secret], 0) == ["🔍 You looked at Bob's loyalty: <b>Evil</b>."]
    assert render.private_events(_table(), [secret], 1) == []


def test_role_card_names_what_merlin_knows_but_not_mordred():
    config = GameConfig(players=7, roles=("merlin", "assassin", "mordred", "percival", "morgana"))
    state, _ = new_game(config, seed=5)
    merlin = state.roles.index("merlin")
    table = _table(7)
    card = render.role_card(table, view(state, merlin))
    assert "You are <b>Merlin</b>" in card
    for seat, role in enumerate(state.roles):
        if role in ("assassin", "morgana"):
            assert NAMES[seat] in card
        if role == "mordred":
            assert NAMES[seat] not in card


def test_board_shows_tracks_leader_and_lady_from_the_public_view():
    config = GameConfig(players=7, roles=("merlin", "assassin"), options={"lady_of_the_lake": True})
    state, _ = new_game(config, seed=2)
    pv = public_view(state)
    text = render.board(_table(7), pv)
    assert "4️⃣ 4*" in text and "needs two fails" in text
    assert f"Leader: {NAMES[state.leader]}" in text
    assert f"Lady of the Lake: {NAMES[pv['lady']['holder']]}" in text


def test_game_over_lists_every_role_and_the_history_with_counts_only():
    rng = random.Random(4)
    state, _ = new_game(GameConfig(players=5), seed=4)
    while not state.over:
        seat = rng.choice(actors(state))
        state, _ = apply_action(state, choose_action(state, seat, rng))
    msgs = render.game_over(_table(5), public_view(state))
    text = "\n".join(msgs)
    for seat in range(5):
        assert NAMES[seat] in text
    assert "Round 1" in text and "History" in text
    assert all(len(m) <= render.MAX_TEXT for m in msgs)


def test_long_texts_are_split_into_messages_telegram_accepts():
    parts = render.split("\n".join(["x" * 100] * 100))
    assert len(parts) == 3 and all(len(p) <= render.MAX_TEXT for p in parts)
