"""What a warm container remembers between updates (``gamebot.storage.state_cache``) gives what computing it again
gives; an update is parsed from only what the handlers read (``inbound.essentials``)."""
from __future__ import annotations

import copy

import pytest
from telegram import Update

from engine import GameConfig, GameState, new_game, public_view
from gamebot.botapi import inbound
from gamebot.messages.board import board
from gamebot.messages.table import Table
from gamebot.storage import state_cache
from gamebot.storage.session import Session


@pytest.fixture(autouse=True)
def _fresh():
    state_cache.clear()
    yield
    state_cache.clear()


def _state(seed: int = 3) -> GameState:
    return new_game(GameConfig(players=7, roles=("merlin", "assassin", "percival", "morgana")), seed)[0]


def _table(lang: str = "en") -> Table:
    return Table(chat_id=-100, game_id="g1", lang=lang, names=[f"P{i}" for i in range(7)],
                        user_ids=list(range(1, 8)), bot_username="bot")


def test_a_stored_state_is_parsed_once_and_read_back_as_written():
    state = _state()
    text = state.to_json()
    first = state_cache.game_state(text)
    assert first == GameState.from_json(text)
    assert state_cache.game_state(str(text)) is first  # the same text read again (another string object)
    s = Session(chat_id=-100)
    s.set_game(state)
    assert Session(chat_id=-100, state=s.state).game() is state  # what this container wrote
    with pytest.raises(ValueError):
        state_cache.game_state("{not json")


def test_views_and_boards_are_those_computed_afresh():
    state = _state()
    pv = state_cache.public(state)
    assert pv == public_view(state) and state_cache.public(state) is pv
    other = GameState.from_json(state.to_json())  # an equal state, another object: its own entry
    assert state_cache.public(other) is not pv and state_cache.public(other) == pv
    for lang in ("en", "fr"):
        for status in ("playing", "ended"):
            assert state_cache.board(board, _table(lang), pv, status) == board(_table(lang), pv, status)
    renamed = _table()
    renamed.names = [f"Q{i}" for i in range(7)]
    assert state_cache.board(board, renamed, pv) == board(renamed, pv) != state_cache.board(board, _table(), pv)


CALLBACK = {
    "update_id": 15,
    "callback_query": {
        "id": "cbq9", "chat_instance": "ci", "data": "V:x",
        "from": {"id": 101, "is_bot": False, "first_name": "Bob", "language_code": "en"},
        "message": {
            "message_id": 2, "date": 1795557618, "text": "<b>Vote</b>",
            "from": {"id": 7, "is_bot": True, "first_name": "GM"},
            "chat": {"id": -100, "type": "supergroup", "title": "Group"},
            "entities": [{"type": "bold", "offset": 0, "length": 4}],
            "reply_markup": {"inline_keyboard": [[{"text": "Yes", "callback_data": "V:x"}]]},
        },
    },
}


def test_of_a_pressed_button_the_handlers_get_what_they_read():
    data = copy.deepcopy(CALLBACK)
    slim = inbound.essentials(data)
    assert data == CALLBACK  # not changed
    assert set(slim["callback_query"]["message"]) == set(inbound.PRESSED_MESSAGE)
    full, lean = Update.de_json(data, None), Update.de_json(slim, None)
    for u in (full, lean):
        q = u.callback_query
        assert (u.update_id, q.id, q.data, q.from_user, q.message.message_id, q.message.chat, q.message.date,
                u.effective_user, u.effective_chat) == (
            15, "cbq9", "V:x", full.callback_query.from_user, 2, full.effective_chat, full.callback_query.message.date,
            full.effective_user, full.effective_chat)
    inaccessible = copy.deepcopy(CALLBACK)
    inaccessible["callback_query"]["message"]["date"] = 0
    assert not Update.de_json(inbound.essentials(inaccessible), None).callback_query.message.is_accessible
    message = {"update_id": 16, "message": {"message_id": 3, "date": 1, "chat": {"id": 1, "type": "private"},
                                            "text": "/start"}}
    assert inbound.essentials(message) is message  # every other update as it came
