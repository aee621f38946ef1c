"""Quest cards played from the group's round message.

A card pressed under the round message is seen by the bot alone: the presser alone is answered (a toast),
the engine refuses every card a player may not play, and a refused press changes nothing anyone sees.
(The Leader's team picker, drawn again at every toggle: tests/unit/test_selection_shown.py.)
"""
from __future__ import annotations

from engine.models import Side
from localdev import updates as U
from tests.unit.gamebot_fakes import GROUP, Harness, session

PLAYERS = [1, 2, 3, 4, 5]






def name(seat: int) -> str:
    return U.user(PLAYERS[seat])["first_name"]


def _quest_with(h: Harness, *sides: Side) -> tuple[list[int], object]:
    """Start a game, propose a team of two with the given sides (one seat of each, in order; any seat
    for None) and approve it: the team's seats and the round message with the quest's cards."""
    h.lobby(PLAYERS)
    h.press_label(PLAYERS[0], GROUP, "Start")
    state = session(h).game()
    team: list[int] = []
    for side in sides:
        team.append(next(s for s in range(len(PLAYERS)) if s not in team and (side is None or state.sides[s] is side)))
    leader = PLAYERS[state.leader]
    for seat in team:
        h.press_label(leader, leader, name(seat))
    h.press_label(leader, leader, "Propose team")
    for uid in PLAYERS:
        h.press_label(uid, GROUP, "Approve")
    return team, h.io.with_button(GROUP, "Success")[0]


def _press_card(h: Harness, uid: int, msg, label: str) -> str:
    btn = next(b for row in msg.keyboard for b in row if label in b.text)
    h.press(uid, msg, btn.data)
    return h.last_answer().text


def test_a_good_player_pressing_fail_is_told_alone_and_nothing_changes(h):
    team, msg = _quest_with(h, Side.GOOD, Side.EVIL)
    before, shown, group_ops = session(h).game(), list(msg.history), len([o for o in h.io.outs if o.chat_id == GROUP])
    answer = _press_card(h, PLAYERS[team[0]], msg, "Fail")
    assert "must play" in answer and "Success" in answer  # the reason, to the presser alone (a toast)
    assert session(h).game().cards == before.cards
    assert msg.history == shown and len([o for o in h.io.outs if o.chat_id == GROUP]) == group_ops


def test_an_evil_player_may_play_fail_and_is_told_which_card_went_in(h):
    team, msg = _quest_with(h, Side.GOOD, Side.EVIL)
    evil = PLAYERS[team[1]]
    assert _press_card(h, evil, msg, "Fail") == "You played ❌ Fail."
    assert session(h).game().cards == {team[1]: "fail"}
    assert "already played" in _press_card(h, evil, msg, "Success")  # one card per quest
    assert session(h).game().cards == {team[1]: "fail"}


def test_a_player_off_the_team_is_told_so(h):
    team, msg = _quest_with(h, None, None)
    outsider = next(uid for seat, uid in enumerate(PLAYERS) if seat not in team)
    assert "not on this quest" in _press_card(h, outsider, msg, "Success")
    assert session(h).game().cards == {}


def test_the_last_card_takes_the_buttons_away_and_the_counts_alone_are_told(h):
    team, msg = _quest_with(h, Side.GOOD, Side.GOOD)
    for seat in team:
        _press_card(h, PLAYERS[seat], msg, "Success")
    while h.idle():
        pass
    assert msg.keyboard is None and "Cards played: 2/2" in msg.text
    assert any("Quest 1 succeeded" in t for t in h.io.texts(GROUP))
