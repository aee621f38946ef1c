"""The board is pinned when a game starts and unpinned when the group's next lobby opens, so the last
game's board never sits pinned over the new lobby (issue 15: "the pinned board carries over")."""
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
