"""End to end through ``lambda_handler`` (the fake Bot API, DynamoDB on moto): the Leader's team picker in
their private chat shows every pick at once, and Propose with too few players says what is missing."""
from __future__ import annotations

from typing import Any


def _picker(table: Any, uid: int) -> dict[str, Any]:
    """The Leader's team picker as their chat shows it now."""
    return next(m for m in reversed(table.messages(uid))
                if any("Propose team" in b["text"] for row in m["buttons"] for b in row))


def _labels(msg: dict[str, Any]) -> list[str]:
    return [b["text"] for row in msg["buttons"] for b in row]


def _answer(table: Any) -> dict[str, Any]:
    return table.fake.calls_to("answerCallbackQuery")[-1]


def test_every_tap_on_the_picker_shows_the_team_so_far(table):
    players = [1, 2, 3, 4, 5]
    table.open_lobby(players)
    assert table.start_game(1) == 200
    uid = table.leader()
    before = _picker(table, uid)
    assert "Selected: nobody yet" in before["text"] and "✔️ Propose team (0/2)" in _labels(before)

    table.press_label(uid, uid, "Bob")
    picker = _picker(table, uid)
    assert picker["message_id"] == before["message_id"]  # the same message, edited
    assert "Selected: Bob" in picker["text"] and "✅ Bob" in _labels(picker) and "▫️ Carol" in _labels(picker)
    assert "✔️ Propose team (1/2)" in _labels(picker)
    assert _answer(table)["text"] == "Selected: Bob"

    table.press_label(uid, uid, "Propose team")  # one short: said, and nothing is proposed
    answer = _answer(table)
    assert answer["text"] == "Choose 2 players: 1 chosen so far." and answer.get("show_alert")
    assert not any("Approve" in b["text"] for m in table.messages(table.group) for row in m["buttons"]
                   for b in row)

    table.press_label(uid, uid, "Carol")
    picker = _picker(table, uid)
    assert "Selected: Bob and Carol" in picker["text"] and {"✅ Bob", "✅ Carol"} <= set(_labels(picker))
    assert "✔️ Propose team (2/2)" in _labels(picker)
    table.press_label(uid, uid, "Bob")  # a name marked chosen is taken out
    picker = _picker(table, uid)
    assert "Selected: Carol" in picker["text"] and "▫️ Bob" in _labels(picker)
    assert "✔️ Propose team (1/2)" in _labels(picker)

    table.press_label(uid, uid, "Dave")
    table.press_label(uid, uid, "Propose team")
    vote = table.messages(table.group)[-1]
    assert "Carol and Dave" in vote["text"] and any("Approve" in label for label in _labels(vote))
    assert set(table.statuses) == {200}
