"""Typed buttons (gamebot.botapi.buttons): every operation encodes to the same bytes the codec always made,
decodes back to itself, and every button a whole game shows decodes to a known operation whose
encoding is byte for byte the data on screen (stored keyboards of live games keep working)."""
from __future__ import annotations

import pytest

from gamebot.botapi import buttons as B
from gamebot.botapi.callbacks import BadCallback, Codec
from gamebot.compose.context import Deps
from gamebot.compose.redraw import settings_page
from gamebot.handlers.language import language_picker
from gamebot.storage.session import LOBBY, Player, Session, kind_tag
from gamebot.storage.store import FakeRepository
from tests.reliability.support import SETUPS
from tests.reliability.transcripts import play

CODEC = Codec("123456:TOKEN")
CHAT = -1001234567890
TAG = kind_tag("lady")

# (typed operation, the scope and op string the codec was given for it before buttons were typed)
OPS = [
    (B.Join(), "L", "j"), (B.Leave(), "L", "l"), (B.OpenSettings(), "L", "s"), (B.StartGame(), "L", "g"),
    (B.SettingsDone(), "S", "d"), (B.Panel("m3"), "S", "m3"),
    (B.TeamSeat(7), "T", "t7"), (B.TeamQuest(2), "T", "q2"), (B.TeamConfirm(), "T", "c"),
    (B.Vote(True), "V", kind_tag("vote") + "a"), (B.Vote(False), "V", kind_tag("vote") + "r"),
    (B.Card(3), "Q", "3"),
    (B.PromptPass(TAG), "P", TAG + "p"), (B.PromptTarget(TAG, 4), "P", TAG + "t4"),
    (B.PromptChoice(TAG, 1), "P", TAG + "x1"), (B.PromptQuest(TAG, 0), "P", TAG + "q0"),
    (B.PromptConfirm(TAG), "P", TAG + "c"), (B.Language("fr"), "G", "lfr"),
]


@pytest.mark.parametrize("op,scope,code", OPS, ids=lambda x: repr(x))
def test_each_operation_encodes_as_before_and_decodes_to_itself(op, scope, code):
    data = op.encode(CODEC, CHAT, "a1b2c3", 42)
    assert data == CODEC.encode(scope, CHAT, "a1b2c3", 42, code)
    assert B.decode(CODEC, data) == B.Pressed(scope, CHAT, "a1b2c3", 42, op)


@pytest.mark.parametrize("scope,code", [("L", "x"), ("T", "t"), ("T", "z1"), ("V", "zza"), ("Q", "a"), ("G", "x")])
def test_an_unknown_operation_of_a_known_scope_decodes_to_none(scope, code):
    assert B.decode(CODEC, CODEC.encode(scope, CHAT, "g", 0, code)).op is None


def test_a_prompt_operation_keeps_its_kind_when_the_rest_is_unknown():
    assert B.decode(CODEC, CODEC.encode("P", CHAT, "g", 0, TAG + "z")).op == B.PromptUnknown(TAG, "z")


def test_forged_data_is_still_refused():
    with pytest.raises(BadCallback):
        B.decode(Codec("another-bot-token"), B.Join().encode(CODEC, CHAT, "g"))


def _datas(keyboards) -> list[str]:
    return [b.data for kb in keyboards if kb for row in kb for b in row if b.data]


def _same_on_the_wire(codec: Codec, data: str) -> None:
    pressed = B.decode(codec, data)
    assert pressed.op is not None and not isinstance(pressed.op, B.PromptUnknown), data
    assert pressed.op.encode(codec, pressed.chat_id, pressed.game_id, pressed.serial) == data


@pytest.mark.parametrize("setup", ["base", "lancelot_rogue_sorcerer", "messengers_liars", "resistance"])
def test_every_button_of_a_whole_game_is_a_typed_operation_with_the_same_bytes(setup):
    h = play(SETUPS[setup], seed=1)
    try:
        datas = _datas(o.keyboard for o in h.io.outs if o.keyboard)
        scopes = {d[0] for d in datas}
        assert {"L", "T", "V", "Q", "P"} <= scopes
        for data in datas:
            _same_on_the_wire(h.codec, data)
    finally:
        h.close()


def test_the_settings_panel_and_the_language_picker_are_typed_operations_with_the_same_bytes():
    deps = Deps(repo=FakeRepository(), io=None, codec=CODEC, bot_username="TestBot")
    s = Session(chat_id=CHAT, title="T", game_id="abc123", status=LOBBY,
                players=[Player(id=i, name=f"P{i}") for i in range(1, 6)])
    datas = []
    for page in ("main", "pr", "pb", "pt"):
        datas += _datas([settings_page(deps, s, page, "en")[1]])
    datas += _datas([language_picker(deps, CHAT, "en")[1]])
    assert {d[0] for d in datas} == {"S", "G"}
    for data in datas:
        _same_on_the_wire(CODEC, data)
