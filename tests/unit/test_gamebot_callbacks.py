"""callback_data codec: at most 64 bytes, signed, round-trips; deep-link payloads."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gamebot.botapi.callbacks import MAX_BYTES, BadCallback, Codec, parse_start_payload, start_payload
from gamebot.storage.session import kind_tag

CODEC = Codec("123456:TOKEN")
BIG_GROUP = -1009999999999999  # the largest ids Telegram uses for supergroups (52 bits)


@settings(max_examples=200, deadline=None)
@given(
    scope=st.sampled_from("LSTVP"),
    chat_id=st.integers(min_value=-(2**52), max_value=2**52),
    serial=st.integers(min_value=0, max_value=5000),
    seat=st.integers(min_value=0, max_value=9),
    kind=st.sampled_from(["play", "lady", "assassinate", "loyalty_card", "plot_keeping_close_eye", "vote"]),
)
def test_callback_data_round_trips_within_64_bytes(scope, chat_id, serial, seat, kind):
    op = f"{kind_tag(kind)}t{seat}"
    data = CODEC.encode(scope, chat_id, "a1b2c3", serial, op)
    assert len(data.encode()) <= MAX_BYTES
    b = CODEC.decode(data)
    assert (b.scope, b.chat_id, b.game_id, b.serial, b.op) == (scope, chat_id, "a1b2c3", serial, op)


def test_forged_callback_data_is_rejected():
    data = CODEC.encode("V", BIG_GROUP, "a1b2c3", 12, kind_tag("vote") + "a")
    scope, chat, game, serial, op, mac = data.split(":")
    for forged in (
        ":".join([scope, chat, game, "d", op, mac]),  # another decision point
        ":".join([scope, chat, "zzzzzz", serial, op, mac]),  # another game
        ":".join([scope, chat, game, serial, kind_tag("vote") + "r", mac]),  # another answer
        ":".join([scope, chat, game, serial, op, "AAAAAA"]),  # made-up signature
    ):
        with pytest.raises(BadCallback):
            CODEC.decode(forged)
    with pytest.raises(BadCallback):
        Codec("another-bot-token").decode(data)


@pytest.mark.parametrize("data", [None, "", "x", "L:1:2:3:4", "Q:1:a:0:j:abcdef", "a" * 65, "L:zz!:a:0:j:abcdef"])
def test_malformed_callback_data_is_rejected(data):
    with pytest.raises(BadCallback):
        CODEC.decode(data)


def test_encoding_refuses_data_over_64_bytes():
    with pytest.raises(ValueError):
        CODEC.encode("P", BIG_GROUP, "a1b2c3", 10**9, "x" * 40)


@pytest.mark.parametrize("chat_id", [-1001234567890, -4012345678, 12345, BIG_GROUP])
@pytest.mark.parametrize("kind", ["j", "r"])
def test_start_payload_round_trips_and_uses_allowed_characters(chat_id, kind):
    payload = start_payload(kind, chat_id, "a1b2c3")
    assert len(payload) <= 64
    assert all(c.isalnum() or c in "_-" for c in payload)
    assert parse_start_payload(payload) == (kind, chat_id, "a1b2c3")


@pytest.mark.parametrize("payload", ["", "hello", "x123_abc", "j_abc", "j12", "j12_ab!c"])
def test_unknown_start_payloads_are_ignored(payload):
    assert parse_start_payload(payload) is None


def test_kind_tags_are_two_characters_and_distinguish_base_prompts():
    kinds = ["propose", "vote", "play", "lady", "assassinate", "loyalty_card"]
    tags = [kind_tag(k) for k in kinds]
    assert all(len(t) == 2 for t in tags)
    assert len(set(tags)) == len(tags)


def test_a_button_of_the_running_game_names_the_session_to_read_ahead_and_a_forgery_names_none():
    from gamebot.botapi.inbound import read_ahead
    from gamebot.storage.session import chat_key

    codec, other = Codec("token"), Codec("another token")
    group = -1001234567890

    def update(data):
        return {"update_id": 1, "callback_query": {"id": "q", "data": data, "from": {"id": 5}}}

    for scope in "TVQP":  # team picker, vote, quest card, private prompt: the group's session first
        assert read_ahead(update(codec.encode(scope, group, "g1", 3, "x1")), codec) == chat_key(group)
    for scope in "LSG":  # lobby, settings, language: other reads come first, nothing is read ahead
        assert read_ahead(update(codec.encode(scope, group, "g1", 3, "j")), codec) is None
    assert read_ahead(update(other.encode("V", group, "g1", 3, "y")), codec) is None  # not signed by us
    assert read_ahead(update("V:" + "x" * 40), codec) is None
    assert read_ahead({"update_id": 2, "message": {"text": "/status"}}, codec) is None
    assert read_ahead(update(None), codec) is None
