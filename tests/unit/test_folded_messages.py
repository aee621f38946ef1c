"""Fewer messages for the same game (issue 13's capacity): what one step sends to one chat is folded.

* A player answers a private decision and their next decision comes in the same step (a Leader dealing
  Plot cards one after the other, the team proposed and then Excalibur to give): the message they
  pressed turns into the next prompt, one edit instead of an edit and a new message.
* The news of a step that also opens a vote (Excalibur given) stands atop the vote message, one message,
  and stays there through the vote's later edits; the news of the last step stands atop the game's end.
"""
from __future__ import annotations

import collections
import random

from gamebot.botapi.telegram_io import Btn, Out
from gamebot.compose.follow_up import fold_into_pressed
from gamebot.storage.effects import Budget
from localdev.autoplay import Policy
from tests.reliability.support import RobustDriver, set_settings
from tests.unit.gamebot_fakes import Harness, HarnessScreen

ROLES = ["merlin", "assassin", "percival", "morgana", "mordred", "oberon"]
EVERY = {"lady_of_the_lake": True, "excalibur": True, "trapper": True, "plot_cards": True, "targeting": True}
KB = [[Btn("A", "x")]]


def test_a_pressed_prompt_turns_into_the_next_prompt_of_the_same_chat():
    closing = Out("edit", chat_id=5, message_id=40, text="Give a card.\n✔️ Done: Ambush", keyboard=None,
                  essential=False, tag="answered", user_id=5)
    other = Out("send", chat_id=6, text="Your turn", keyboard=KB, tag="prompt:trap", user_id=6)
    nxt = Out("send", chat_id=5, text="Give another card.", keyboard=KB, tag="prompt:plot_deal", user_id=5, live=9)
    folded = fold_into_pressed([closing, other, nxt])
    assert [(o.op, o.chat_id) for o in folded] == [("edit", 5), ("send", 6)]
    edit = folded[0]
    assert edit.message_id == 40 and edit.essential and edit.fallback_send
    assert edit.text == "Give a card.\n✔️ Done: Ambush\n\nGive another card." and edit.keyboard == KB
    assert (edit.tag, edit.live) == ("prompt:plot_deal", 9)


def test_nothing_is_folded_when_another_message_comes_first_or_no_prompt_follows():
    closing = Out("edit", chat_id=5, message_id=40, text="Done", keyboard=None, essential=False, tag="answered")
    seen = Out("send", chat_id=5, text="🔍 You saw: Good", tag="private_event")
    nxt = Out("send", chat_id=5, text="Next", keyboard=KB, tag="prompt:plot_deal")
    assert fold_into_pressed([closing, seen, nxt]) == [closing, seen, nxt]  # the news first, in its order
    assert fold_into_pressed([closing]) == [closing]
    group = Out("edit", chat_id=-100, message_id=3, text="Vote", keyboard=None, essential=False)
    assert fold_into_pressed([group, nxt]) == [group, nxt]  # only a private chat's pressed message


def _play(seed: int):
    h = Harness(seed=seed)
    h.service.uow.budget = Budget()
    h.pace = 4.0  # (a human pace: the group's budget holds no step back, so an update's messages are its step's)
    players = list(range(100 * seed + 1, 100 * seed + 11))
    h.lobby(players)
    set_settings(h.repo, h.group, "avalon", ROLES, EVERY)
    marks = []
    send = h.send

    def marked(update):
        marks.append(len(h.io.outs))
        return send(update)

    h.send = marked
    h.press_label(players[0], h.group, "Start")
    driver = RobustDriver(HarnessScreen(h), h.group, players, Policy(rng=random.Random(seed)),
                          status=lambda u, c: h.command(u, "/status", chat_id=c))
    driver.play()
    marks.append(len(h.io.outs))
    steps = [h.io.outs[a:b] for a, b in zip(marks, marks[1:], strict=False)]
    return h, driver, steps


def test_a_game_with_every_module_sends_one_message_where_a_step_had_two():
    h, driver, steps = _play(seed=1)
    try:
        assert driver.over()
        unfolded = collections.Counter()
        for outs in steps:
            by_chat = collections.defaultdict(list)
            for o in outs:
                if o.op in ("send", "edit", "markup", "photo"):
                    by_chat[o.chat_id].append(o)
            for chat, ops in by_chat.items():
                if chat > 0 and any(o.op == "edit" and o.keyboard is None for o in ops) and any(
                        o.op == "send" and (o.tag or "").startswith(("prompt", "picker")) and o.tag != "picker"
                        for o in ops):
                    unfolded["private: a closing edit and a new prompt"] += 1
                sends = [o for o in ops if o.op == "send"]
                if chat < 0 and any(o.tag == "announce" for o in sends) and len(sends) > 1:
                    unfolded["group: news and another message"] += 1
        assert unfolded == {}
        folded = [o for outs in steps for o in outs if o.op == "edit" and (o.tag or "").startswith("prompt:")
                  and o.keyboard and "\n\n" in (o.text or "")]
        assert len(folded) >= 5  # Plot cards dealt one after the other, Excalibur after the team
        votes = [o for outs in steps for o in outs if o.chat_id == h.group and o.tag == "vote" and o.op == "send"]
        with_news = [v for v in votes if v.text.startswith("⚔️")]
        assert with_news, [v.text[:80] for v in votes]
        news = with_news[0].text.partition("\n\n")[0]
        message = next(m for m in h.io.msgs.values() if m.chat_id == h.group and m.history[0] == with_news[0].text)
        assert len(message.history) > 2 and all(text.startswith(news) for text in message.history)
    finally:
        h.close()
