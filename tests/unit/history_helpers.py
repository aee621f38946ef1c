"""A group's history played through the service, for the tests and the benchmark of the chat's item
(``scripts/bench_group_history.py``): games where everyone runs out of time, and the Leader's proposal."""
from __future__ import annotations

from typing import Any

from tests.unit.gamebot_fakes import GROUP


def press_team(h: Any) -> None:
    """The Leader proposes the first players of their picker (its button says how many: "(0/3)")."""
    s = h.session()
    leader = s.players[s.game().leader].id
    buttons = [b.text for row in (h.io.last(leader).keyboard or []) for b in row]
    need = int(next(t for t in buttons if "Propose team" in t).split("/")[1].rstrip(")"))
    for label in [t for t in buttons if t.startswith("▫️")][:need]:
        h.press_label(leader, leader, label)
    h.press_label(leader, leader, "Propose team")
    assert h.session().game().stage == "vote", "the team was not proposed"


def timed_out_game(h: Any, players: list[int]) -> None:
    """A game of ``players`` (a ``timer_fakes.Timed`` harness) where everyone runs out of time: the first
    Leader proposes a team, nobody votes (every player in the idle record), nobody plays a card, and every
    later proposal times out until five rejections end the game (Evil wins: it counts, its players rated)."""
    h.lobby(players)
    while h.idle():  # (the lobby's messages behind the group's budget)
        pass
    h.press_label(players[0], GROUP, "Start")
    press_team(h)
    for _ in range(40):
        if h.session().status != "playing":
            return
        h.fire_next("expire")
    raise AssertionError("the game did not end")
