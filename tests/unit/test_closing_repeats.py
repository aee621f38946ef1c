"""A closed message never comes back: a closing edit decided within ``RACE_WINDOW`` of a progress edit
with buttons of the same message (let out by another function, which may still reach Telegram after
the closing edit) is sent once more when that window has passed, by whatever runs next for the chat;
a newer edit of the message makes the repeat unnecessary. (Through whole containers at once:
``tests/reliability/test_closed_messages.py``.)"""
from __future__ import annotations

from gamebot.botapi.telegram_io import Btn, Out
from gamebot.outbox.plan import Plan
from gamebot.outbox.uow import UnitOfWork
from gamebot.storage.effects import RACE_WINDOW, Outbox
from gamebot.storage.session import Session
from gamebot.storage.store import FakeRepository

GROUP = -100
KB = [[Btn("✅ Approve", "V:a"), Btn("❌ Reject", "V:r")]]
T = 1_800_000_000.0


def _sort(s: Session, now: float, *outs: Out):
    return UnitOfWork(FakeRepository(), clock=lambda: now).sort(s, Plan(session=s, outs=list(outs)), GROUP, 1)


def _progress(text: str) -> Out:
    return Out("edit", chat_id=GROUP, message_id=7, text=text, keyboard=KB, essential=False, view="vote", tag="vote")


def _closing(text: str = "Votes: approved") -> Out:
    return Out("edit", chat_id=GROUP, message_id=7, text=text, keyboard=None, tag="vote", view="vote")


def test_a_closing_edit_just_after_a_progress_edit_with_buttons_is_sent_again_once_the_window_has_passed():
    s = Session(chat_id=GROUP, outbox=Outbox())
    step = _sort(s, T, _progress("Voted (9/10)"))
    assert [o.text for o in step.direct] == ["Voted (9/10)"]  # let out by this function...
    step = _sort(s, T + 0.2, _closing())  # ...while another one closes the vote
    assert [e.text for e in step.stored] == ["Votes: approved"]
    assert [r.text for r in s.outbox.repeats] == ["Votes: approved"]
    assert s.outbox.repeats[0].not_before == T + RACE_WINDOW
    assert not [o for o in _sort(s, T + 1.0).direct if o.tag == "repeat"]  # not yet: the progress may be late
    again = [o for o in _sort(s, T + RACE_WINDOW + 0.1).direct if o.tag == "repeat"]
    assert [(o.op, o.message_id, o.text, o.keyboard, o.essential) for o in again] == [
        ("edit", 7, "Votes: approved", None, False)]  # like progress: no ack, no write of its own
    assert s.outbox.repeats == []


def test_no_repeat_without_a_recent_progress_edit_with_buttons():
    s = Session(chat_id=GROUP, outbox=Outbox())
    _sort(s, T, _progress("Voted (9/10)"))
    _sort(s, T + RACE_WINDOW + 1, _closing())  # long after: the progress edit has certainly arrived
    assert s.outbox.repeats == []
    s = Session(chat_id=GROUP, outbox=Outbox())
    _sort(s, T, _closing())
    assert s.outbox.repeats == []


def test_a_newer_edit_of_the_message_makes_the_repeat_unnecessary():
    s = Session(chat_id=GROUP, outbox=Outbox())
    _sort(s, T, _progress("Voted (9/10)"))
    _sort(s, T + 0.2, _closing("Votes: approved; the quest's cards below"))
    assert s.outbox.repeats
    later = Out("edit", chat_id=GROUP, message_id=7, text="Cards played: 3/3", keyboard=None, tag="quest")
    _sort(s, T + 1.0, later)  # the message's next closing edit: the one to repeat now, if any
    assert [r.text for r in s.outbox.repeats] == ["Cards played: 3/3"]
    s.outbox.raced(GROUP, 7, T + 20)  # a newer progress edit with buttons goes out: nothing older to repeat
    assert s.outbox.repeats == []


def test_a_repeat_never_undoes_a_newer_edit_of_its_message_made_in_the_same_step():
    """A prompt's closing edit is due to be sent again just as the player's next toggle edits the same
    message (a prompt folded into the next one): the toggle is newer, the repeat is dropped."""
    s = Session(chat_id=GROUP, outbox=Outbox())
    mine = 5  # a player's private chat
    toggle = lambda text: Out("edit", chat_id=mine, message_id=7, text=text, keyboard=KB, essential=False)  # noqa: E731
    _sort(s, T, toggle("Deal: Bob ✅"))
    _sort(s, T + 0.2, Out("edit", chat_id=mine, message_id=7, text="Done.\n\nThe team: nobody yet", keyboard=KB,
                          fallback_send=True))  # (folded: the pressed prompt becomes the next one)
    assert s.outbox.repeats
    step = _sort(s, T + RACE_WINDOW + 1, toggle("The team: Bob"))
    assert [o.text for o in step.direct] == ["The team: Bob"] and s.outbox.repeats == []
