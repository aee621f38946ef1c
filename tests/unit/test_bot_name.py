"""gamebot.botapi.bot_name: the username is asked for only when read, once, and a failure never raises."""
from __future__ import annotations

import logging

import pytest

from gamebot.botapi.bot_name import BotName
from gamebot.botapi.callbacks import Codec
from gamebot.messages.lobby import lobby
from gamebot.messages.table import Table

TOKEN = "123456:SECRET-token-value"


class Lookup:
    """A scripted getMe: each call returns or raises the next answer."""

    def __init__(self, *answers: object) -> None:
        self.answers = list(answers)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return str(answer)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_nothing_is_asked_until_the_name_is_read_then_it_is_asked_once():
    lookup = Lookup("GameBot")
    name = BotName(lookup)
    table = Table(chat_id=-100, game_id="g1", bot_username=name)
    assert lookup.calls == 0 and name.known == "" and "not learned" in repr(name) and "g1" in repr(table)
    assert table.link("abc") == "https://t.me/GameBot?start=abc"
    assert (str(name), f"{name}", bool(name), name.lower(), name == "GameBot") == (
        "GameBot", "GameBot", True, "gamebot", True)
    assert lookup.calls == 1 and name.lookups == 1 and name.known == "GameBot"


def test_an_at_sign_in_the_answer_is_dropped():
    assert str(BotName(Lookup("@GameBot"))) == "GameBot"


@pytest.mark.parametrize("failure", [ConnectionError(f"https://api.telegram.org/bot{TOKEN}/getMe"), ""],
                         ids=["raises", "no username"])
def test_a_failed_lookup_reads_as_empty_and_is_retried_only_after_the_pause(failure, caplog):
    lookup, clock = Lookup(failure, "GameBot"), Clock()
    name = BotName(lookup, retry_after=30.0, clock=clock)
    with caplog.at_level(logging.WARNING, logger="gamebot.botapi.bot_name"):
        assert str(name) == "" and not name
    assert TOKEN not in caplog.text and "username" in caplog.text
    clock.now += 29.0
    assert name.get() == "" and lookup.calls == 1  # an outage costs one try, not one per message
    clock.now += 1.0
    assert name.get() == "GameBot" and lookup.calls == 2
    clock.now += 1000.0
    assert name.get() == "GameBot" and lookup.calls == 2


def test_without_a_name_deep_links_are_left_out_not_broken():
    codec = Codec("1:test")
    table = Table(chat_id=-100, game_id="g1", names=["Ann", "Bob"], user_ids=[1, 2],
                         bot_username=BotName(Lookup(TimeoutError("slow")), clock=Clock()))
    assert table.deep_link("j") == ""
    text, keyboard = lobby(table, "Ann", ["merlin", "assassin"], {}, codec)
    assert "Ann" in text and [b.url for row in keyboard for b in row] == [None] * 5  # Join, Leave, 🤖 Add a bot, Settings, Start


def test_a_given_name_is_used_as_is_and_the_lobby_links_the_bot():
    table = Table(chat_id=-100, game_id="g1", names=["Ann"], user_ids=[1], bot_username="GivenBot")
    assert table.link("x") == "https://t.me/GivenBot?start=x"
    _, keyboard = lobby(table, "Ann", ["merlin", "assassin"], {}, Codec("1:test"))
    assert [b.url for row in keyboard for b in row if b.url] == [table.deep_link("j")]
