"""The end's text history and head (gamebot.story.end_text, gamebot.story.by_round): a player can retell the whole
game from them: numbered teams (a team not proposed in time counts, as on the vote track), timed-out
turns, the Lady of the Lake, Excalibur, Plot cards, the Recruitment and the assassination by name, a
Rogue's solo win by name; in English and in French."""
from __future__ import annotations

from engine import Action, apply_action, prompts, public_view
from gamebot.compose.follow_up import picture_out
from gamebot.messages.board import board
from gamebot.messages.events import event_line
from gamebot.messages.table import Table
from gamebot.story import by_round, end_text
from tests.builder import make_state
from tests.helpers import act, propose, run_quest

NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"]
BASE5 = ["merlin", "servant", "servant", "assassin", "minion"]


def table(n=5, lang="en", theme="avalon"):
    return Table(chat_id=-1, game_id="g", lang=lang, theme=theme, names=NAMES[:n])


def timeout(state, seat):
    return apply_action(state, Action(seat=seat, kind="timeout"))[0]


def test_teams_are_numbered_in_their_round_and_a_team_not_proposed_in_time_counts():
    s = timeout(timeout(make_state(BASE5, leader=0), 0), 1)  # Alice, then Bob, propose nothing in time
    s, _ = propose(s, (2, 3))  # the third team of the round: "team 3 of 5" when it was proposed
    s = timeout(s, 4)  # Erin does not vote
    for seat in range(4):
        s, _ = act(s, seat, "vote", choice="approve")
    s, _ = act(s, 2, "play", choice="success")
    s = timeout(s, 3)  # Dave does not play his card
    s, _ = propose(s, (0, 1, 2))  # round 2: Dave leads after Carol
    pv = public_view(s)
    (r1, r2) = by_round.rounds(pv)
    assert [(t.number, t.leader, t.skipped) for t in r1.turns] == [(1, 0, True), (2, 1, True), (3, 2, False)]
    assert [t["seat"] for t in r1.turns[2].timeouts] == [4] and [t["seat"] for t in r1.quest_timeouts] == [3]
    assert [(t.number, t.leader) for t in r2.turns] == [(1, 3)]
    assert end_text.history(table(), pv) == [
        "<b>History</b>",
        "<b>Round 1</b> · Quest 1",
        "  Team 1 · Alice: ⏰ no team proposed in time → rejected",
        "  Team 2 · Bob: ⏰ no team proposed in time → rejected",
        "  Team 3 · Carol: Carol and Dave → ✅ Alice, Bob, Carol, Dave and Erin | ❌ none → approved",
        "  ⏰ Out of time (vote): Erin",
        "  ⏰ Out of time (Quest cards): Dave",
        "  ⚔️ Carol and Dave: success (2 × ✅ Success)",
        "<b>Round 2</b> · Quest 2",
        "  Team 1 · Dave: Alice, Bob and Carol → 🗳 vote open, no votes yet",  # (being voted on: no result)
    ]


def _pv(**extra):
    pv = {"players": 5, "theme": "avalon", "winner": "evil", "win_reason": "three_failures", "winners": [1, 3],
          "roles": ["merlin", "assassin", "servant", "minion", "servant"],
          "sides": ["good", "evil", "good", "evil", "good"],
          "proposals": [{"round": 1, "quest": 0, "leader": 0, "team": [0, 1], "votes": "ARRRR", "approved": False},
                        {"round": 1, "quest": 0, "leader": 1, "team": [1, 2], "votes": "AAARA", "approved": True},
                        {"round": 2, "quest": 1, "leader": 2, "team": [0, 2, 4], "votes": "AAAAA", "approved": True}],
          "quests": [{"round": 1, "quest": 0, "team": [1, 2], "cards": {"fail": 1, "success": 1}, "success": False},
                     {"round": 2, "quest": 1, "team": [0, 2, 4], "cards": {"success": 3}, "success": True}]}
    pv.update(extra)
    return pv


def test_the_history_tells_the_lady_excalibur_plot_cards_and_who_ran_out_of_time_where():
    pv = _pv(
        lady={"holder": 3, "held": [4], "uses": [{"round": 2, "quest": 1, "holder": 4, "target": 3}]},
        excalibur={"holder": None, "uses": [{"round": 1, "quest": 0, "holder": 2, "target": 1}]},
        plot={"played": [{"round": 2, "card": "keeping_close_eye", "seat": 3, "target": 0}]},
        timeouts=[
            {"round": 1, "when": "turn", "proposals": 1, "seat": 1, "kind": "plot_deal", "hidden": False},
            {"round": 1, "when": "proposal", "proposals": 2, "seat": 1, "kind": "give_excalibur", "hidden": False},
            {"round": 1, "when": "proposal", "proposals": 2, "seat": 3, "kind": "vote", "hidden": False},
            {"round": 1, "when": "proposal", "proposals": 2, "seat": 4, "kind": "vote", "hidden": False},
            {"round": 2, "when": "after_quest", "proposals": 3, "seat": 3, "kind": "loyalty_card", "hidden": True},
        ],
    )
    history = end_text.history(table(), pv)
    assert history[1:] == [
        "<b>Round 1</b> · Quest 1",
        "  Team 1 · Alice: Alice and Bob → ✅ Alice | ❌ Bob, Carol, Dave and Erin → rejected",
        "  ⏰ Out of time (Plot cards): Bob",
        "  Team 2 · Bob: Bob and Carol → ✅ Alice, Bob, Carol and Erin | ❌ Dave → approved",
        "  ⏰ Out of time (Give Excalibur): Bob",
        "  ⏰ Out of time (vote): Dave and Erin",
        "  ⚔️ Carol used Excalibur on Bob's card",
        "  ⚔️ Bob and Carol: failed (1 × ❌ Fail, 1 × ✅ Success)",
        "<b>Round 2</b> · Quest 2",
        "  🃏 Dave plays <b>Ambush</b> and looks at Alice's card.",
        "  Team 1 · Carol: Alice, Carol and Erin → ✅ Alice, Bob, Carol, Dave and Erin | ❌ none → approved",
        "  ⚔️ Alice, Carol and Erin: success (3 × ✅ Success)",
        "  🌊 Erin used the Lady of the Lake on Dave",
        "  ⏰ Out of time on a secret decision (Loyalty card): Dave",
    ]
    # What a check showed is never there: only who examined whom.
    assert "Good" not in "\n".join(history) and "Evil" not in "\n".join(history)
    french = end_text.history(table(lang="fr"), pv)
    assert "  🌊 Erin a utilisé la Dame du Lac sur Dave" in french
    assert "  ⏰ Temps écoulé (vote) : Dave et Erin" in french
    assert "  Équipe 2 · Bob : Bob et Carol → ✅ Alice, Bob, Carol et Erin | ❌ Dave → approuvée" in french


def test_a_recruited_servant_who_finds_merlin_is_named_as_the_one_who_did():
    roles = ["merlin", "untrustworthy_servant", "servant", "assassin", "minion", "servant", "minion"]
    s = make_state(roles, leader=0)
    for _ in range(3):  # three successes by Good teams
        s, _ = run_quest(s, [0, 1, 2, 5][: prompts(s, s.leader)[0].pick])
    s, _ = act(s, 3, "recruit", (1,))
    s, _ = act(s, 1, "assassinate", (0,))
    pv = public_view(s)
    head, history = end_text.game_over(table(7), pv)
    assert head.splitlines()[:3] == ["🏁 <b>Game over: Evil wins!</b>", "Bob found Merlin.",
                                     "Winners: Bob, Dave, Erin and Grace"]
    assert history.splitlines()[-3:] == [
        "<b>After the quests</b>",
        "  🤝 Dave names Bob... who <b>is</b> the Untrustworthy Servant and now joins Evil!",
        "  🗡 Bob names Alice... and Alice <b>is</b> Merlin!",
    ]
    fr_head, _ = end_text.game_over(table(7, "fr"), pv)
    assert "Bob a trouvé Merlin." in fr_head


def test_the_messengers_target_is_told_and_the_assassin_named():
    attempt = {"assassin": 1, "kind": "messengers", "announced": True, "named": [0, 2], "hit": False}
    pv = _pv(winner="good", win_reason="assassination_missed", winners=[0, 2, 4], assassination=attempt)
    head, history = end_text.game_over(table(), pv)
    assert head.splitlines()[1] == "Bob did not find both Good Messengers."
    assert history.splitlines()[-3:] == [
        "<b>After the quests</b>",
        "  🗡 Bob will name: <b>the Good Messengers</b>.",
        "  🗡 Bob names Alice and Carol... who are <b>not</b> both Good Messengers!",
    ]
    hit = _pv(win_reason="messengers_assassinated", assassination={**attempt, "hit": True})
    assert end_text.reason(table(), hit) == "Bob found both Good Messengers."
    assert end_text.reason(table(lang="fr"), hit) == "Bob a trouvé les deux Messagers du Bien."
    started = [event_line(table(), "AssassinationStarted", {"assassin": 1, "choices": choices})
               for choices in (["merlin"], ["messengers"], ["merlin", "messengers"])]
    assert started[0].endswith("Bob must now name Merlin.")
    assert started[1].endswith("Bob must now name both Good Messengers.")
    assert "Bob now chooses whom to hunt: Merlin or the Good Messengers" in started[2]


def test_a_rogue_who_wins_alone_is_named_in_the_head_the_picture_and_its_caption():
    pv = _pv(winner="good", win_reason="good_rogue_solo", winners=[4],
             roles=["merlin", "assassin", "servant", "minion", "good_rogue"],
             rogue={"watch": None, "watches": [], "tokens": [], "solo": 4, "partial": []})
    head, _ = end_text.game_over(table(), pv)
    assert head.splitlines()[:2] == ["🏁 <b>Game over: Erin wins alone as Good Rogue!</b>",
                                     "The Good Rogue completed their plan."]
    assert "Winners" not in head  # the title already says who won
    assert end_text.result(table(), pv) == ("Erin wins alone", "good")
    fr_head, _ = end_text.game_over(table(lang="fr"), pv)
    assert fr_head.startswith("🏁 <b>Fin de la partie : Erin l'emporte en solitaire (rôle : Brigand du Bien) !</b>")
    last = {"game_id": "g", "status": "ended", "names": NAMES[:5], "user_ids": list(range(5)), "view": pv}
    out = picture_out(-1, last, "en")
    assert out is not None and out.text == "🖼 <b>Avalon</b> · 5 players · Erin wins alone"


def test_the_board_never_shows_the_records_kept_for_the_history():
    pv = _pv(stage="team", round=3, leader=0, quest=None, quest_choices=[2], team=[], team_size=2, vote_track=0,
             track=[{"quest": i, "size": 2, "fails_needed": 1, "result": None} for i in range(5)], voted=[], played=[],
             waiting={"kind": "propose", "seats": [0]},
             timeouts=[{"round": 1, "when": "proposal", "proposals": 2, "seat": 3, "kind": "vote", "hidden": False}],
             assassination={"assassin": 1, "kind": "merlin", "named": [], "hit": None})
    del pv["roles"], pv["sides"]
    text = board(table(), pv)
    assert "Out of time" not in text and "Assassination" not in text
    assert text == board(table(), {k: v for k, v in pv.items() if k not in ("timeouts", "assassination")})
