"""What the group's next lobby takes over from the last game: the board the bot pinned is unpinned (issue
15: "the pinned board carries over"), and what waits in the outbox still goes out."""
from __future__ import annotations

from tests.unit.gamebot_fakes import GROUP

PLAYERS = [1, 2, 3, 4, 5]


def _ops(h, op):
    return [o for o in h.io.outs if o.op == op and o.chat_id == GROUP]


def test_the_next_lobby_unpins_the_last_game_s_board(h):
    h.lobby(PLAYERS)
    h.press_label(1, GROUP, "Start")
    pins = _ops(h, "pin")
    assert len(pins) == 1
    board = pins[0].message_id
    h.command(1, "/cancel", chat_id=GROUP)
    assert _ops(h, "unpin") == []  # the cancelled game's board stays until a new lobby replaces it
    h.command(1, "/newgame", chat_id=GROUP)
    unpins = _ops(h, "unpin")
    assert [o.message_id for o in unpins] == [board]
    h.command(2, "/newgame", chat_id=GROUP)  # (a lobby is open: refused) and nothing is unpinned twice
    h.command(1, "/cancel", chat_id=GROUP)
    h.command(1, "/newgame", chat_id=GROUP)
    assert len(_ops(h, "unpin")) == 1


def test_a_game_whose_board_could_not_be_pinned_unpins_nothing(h):
    h.io.cannot_pin = True
    h.lobby(PLAYERS)
    h.press_label(1, GROUP, "Start")
    h.command(1, "/cancel", chat_id=GROUP)
    h.command(1, "/newgame", chat_id=GROUP)
    assert _ops(h, "unpin") == []


def test_a_new_lobby_keeps_what_waits_in_the_outbox_and_the_group_s_budget(h):
    """What the last game decided and could not send yet (its end waiting for the group's budget) still
    goes out after a new lobby opens, and the new lobby does not restart the group's count of messages."""
    from gamebot.storage.effects import Effect
    from gamebot.storage.session import ENDED, Session, chat_key
    from gamebot.storage.store import Item
    from tests.unit.gamebot_fakes import T0, session

    h.service.set_clock(lambda: T0)
    s = Session(chat_id=GROUP, title="g", status=ENDED, game_id="old")
    waiting = s.outbox.add(Effect(seq=0, op="send", chat=GROUP, text="The end of the last game", tag="end"))
    waiting.not_before = T0 + 30  # the group's budget is spent: it waits
    s.outbox.group_ops = [T0 - 10.0] * 20
    h.repo.put(Item(chat_key(GROUP), s.body()), None)
    h.command(1, "/newgame", chat_id=GROUP)
    now = session(h)
    assert now.status == "lobby" and now.game_id != "old"
    assert [e.text for e in now.outbox.effects if e.tag == "end"] == ["The end of the last game"]
    assert len(now.outbox.recent_ops(T0)) >= 20  # the budget's minute still counts the last game's messages
