"""Rules audit: the defects found while checking the engine against the rulebooks, and interactions
between rules that the property tests do not single out. Each test names the rule it checks.

Rulebooks: 000 Avalon, 002 Avalon Big Box, 003 The Resistance; RN = /work/shared/rules-notes.md.
"""
from __future__ import annotations

import pytest

from engine import (
    GameConfig,
    GameState,
    Side,
    Theme,
    new_game,
    prompts,
    public_view,
    validate_config,
    waiting_for,
)
from engine.errors import InvalidChoice, InvalidTarget
from engine.modules.assassination import assassin_seat
from engine.plugin import Ctx
from tests.builder import make_state
from tests.helpers import act, propose, reject, vote
from tests.unit.bigbox_helpers import answer, play_cards, quest, to_cards
from tests.unit.plot_helpers import drawing, mod, seat_of, start

LANCELOT_MOD = "lancelot_allegiance"
NO, SWITCH = "no_change", "switch"


def _codes(config: GameConfig, level: str | None = None) -> set[str]:
    return {i.code for i in validate_config(config) if level is None or i.level == level}


def _dealt_allegiance(roles: list[str], cards: list[str]) -> GameState:
    """Variant 2 with these Allegiance cards above the quests: the first seed whose shuffle deals them
    (a real ``new_game``; the first quest has begun, its card turned)."""
    for seed in range(500):
        state = make_state(roles, options={"lancelot": "bigbox_predealt"}, seed=seed)
        if state.mods[LANCELOT_MOD]["cards"] == cards:
            assert state.mods[LANCELOT_MOD]["applied"] == [0]
            return state
    raise AssertionError(f"no seed deals {cards}")


def _success(state: GameState, team) -> GameState:
    """Propose ``team``, approve it (giving the Watch token to its first member if asked), all Success."""
    state, _ = propose(state, team)
    state, _ = vote(state)
    if state.pending and state.pending[0].kind == "watch":
        state, _ = act(state, state.leader, "watch", (state.team[0],))
    for seat in list(state.team):
        state, _ = act(state, seat, "play", choice="success")
    return state


def _actor(state: GameState) -> int:
    (seat,) = [s for s in range(state.n) if prompts(state, s)]
    return seat


# ---------------------------------------------------------------------------------------------
# Who assassinates without an Assassin card (002 "designate any other Evil character")
# ---------------------------------------------------------------------------------------------

# 7 players: Evil Lancelot sits first. Nobody is designated and every Evil seat is a special character.
LANCELOT_TABLE = ["evil_lancelot", "good_lancelot", "merlin", "percival", "untrustworthy_servant", "morgana", "mordred"]
MORGANA = 5


@pytest.mark.parametrize("cards", [[NO] * 5, [NO, SWITCH, NO, NO, NO]])
def test_the_assassin_is_chosen_from_the_cards_and_never_a_lancelot_who_may_switch(cards):
    """Defect: the engine took the lowest-seated player whose *current* side was Evil: Evil Lancelot, who
    may turn Good, or after a Switch the Good Lancelot; and the Untrustworthy Servant had been shown a
    different seat at the Reveal than the one that recruited and assassinated."""
    s = _dealt_allegiance(LANCELOT_TABLE, cards)
    # "Assassin, extend your thumb so that the Untrustworthy Servant may know you."
    assert [(k.seat, k.label) for k in s.knowledge[4] if k.label == "assassin"] == [(MORGANA, "assassin")]
    for team in ((2, 3), (2, 3, 4), (2, 3, 4)):
        s = _success(s, team)
    assert s.sides[1] is (Side.EVIL if SWITCH in cards else Side.GOOD)
    # The Recruitment stage, then the Assassination stage: both performed by Morgana.
    assert _actor(s) == MORGANA and prompts(s, MORGANA)[0].kind == "recruit"
    s, _ = act(s, MORGANA, "recruit", (3,))
    assert _actor(s) == MORGANA and prompts(s, MORGANA)[0].kind == "assassinate"
    s, _ = act(s, MORGANA, "assassinate", (2,))
    assert s.winner is Side.EVIL and s.win_reason == "merlin_assassinated"


def test_the_evil_rogue_never_assassinates():
    """Defect: with no Assassin card and no Minion the Evil Rogue (who plays alone, unseen by Evil)
    could be the one to assassinate. Oberon, an Evil character, does it."""
    s = make_state(["evil_rogue", "merlin", "servant", "servant", "oberon"])
    for team in ((1, 2), (1, 2, 3), (1, 2)):
        s = _success(s, team)
    assert _actor(s) == 4 and prompts(s, 4)[0].kind == "assassinate"


def test_the_evil_rogue_cannot_be_designated_to_assassinate():
    config = GameConfig(players=7, roles=("merlin", "evil_rogue"), assassin="evil_rogue")
    assert "assassin_cannot_assassinate" in _codes(config, "error")


def test_a_game_where_no_evil_character_may_assassinate_is_refused():
    # Both Evil seats: a Lancelot who may switch and the Evil Rogue.
    roles = ("merlin", "good_lancelot", "evil_lancelot", "evil_rogue")
    problem = [i for i in validate_config(GameConfig(players=5, roles=roles, options={"lancelot": "bigbox_switch"}))
               if i.code == "no_assassin"]
    assert problem and problem[0].level == "error" and "Assassin" in problem[0].message
    # The base Lancelot rule: Evil Lancelot never switches, so he may assassinate.
    assert "no_assassin" not in _codes(GameConfig(players=5, roles=roles))


@pytest.mark.parametrize("designated", ["servant", "percival", "good_messenger"])
def test_messenger_games_refuse_a_good_designated_assassin(designated):
    """Defect: the designated Assassin was only checked with Merlin in play. In a Messengers game without
    Merlin a Loyal Servant could be designated, and a Good player then assassinated the Messengers."""
    roles = ("good_messenger", "good_messenger", "evil_messenger", "percival")
    config = GameConfig(players=7, roles=roles, assassin=designated)
    assert "assassin_not_evil" in _codes(config, "error")


def test_a_designation_while_the_assassin_card_plays_is_a_warning():
    config = GameConfig(players=7, roles=("merlin", "assassin", "percival", "morgana"), assassin="morgana")
    assert "assassin_designation_unused" in _codes(config, "warning")
    assert not _codes(config, "error")


@pytest.mark.parametrize(
    ("option", "roles"),
    [
        ("sorcerer_hidden", ("good_sorcerer", "evil_sorcerer")),
        ("senior_junior_messengers", ("good_messenger", "good_messenger", "evil_messenger")),
    ],
)
def test_a_module_option_without_its_characters_is_a_warning(option, roles):
    """Defect: an option of a module not in the game was accepted silently (it does nothing)."""
    without = GameConfig(players=7, roles=("merlin", "assassin"), options={option: True})
    assert "option_without_effect" in _codes(without, "warning")
    assert "option_without_effect" not in _codes(GameConfig(players=7, roles=roles, options={option: True}))


# ---------------------------------------------------------------------------------------------
# Loyalty checks with a Trickster at the table (002 "CHECKING LOYALTY", Trickster)
# ---------------------------------------------------------------------------------------------

# 0 Merlin, 1-2 Servants, 3 Troublemaker, 4 Assassin, 5 Trickster, 6 Minion; the Lady starts on seat 6.
LIARS = ["merlin", "servant", "servant", "troublemaker", "assassin", "trickster", "minion"]
HOLDER = 6


def _lady_time(roles):
    s = make_state(roles, options={"lady_of_the_lake": True})
    s = _success(s, (1, 2))
    s = _success(s, (1, 2, 3))
    assert prompts(s, HOLDER)[0].kind == "lady"
    return s


@pytest.mark.parametrize(("target", "cards"), [(5, ["evil", "good"]), (1, ["good"]), (3, ["evil"]), (4, ["evil"])])
def test_with_a_trickster_at_the_table_every_examined_player_hands_a_card_in_secret(target, cards):
    """Defect: only the Trickster's check waited for a decision, so the table saw the game pause exactly
    when the Trickster was examined ("Waiting for a secret decision") and knew who the Trickster was."""
    s, _ = act(_lady_time(LIARS), HOLDER, "lady", (target,))
    assert waiting_for(s) == {"kind": "loyalty_card", "seats": [], "hidden": True}
    assert public_view(s)["waiting"] == waiting_for(s)
    (p,) = prompts(s, target)
    assert p.kind == "loyalty_card" and p.choices == cards  # the Trickster may lie, the Troublemaker must
    if len(cards) == 1:
        with pytest.raises(InvalidChoice):
            act(s, target, "loyalty_card", choice="good" if cards == ["evil"] else "evil")
    s, events = act(s, target, "loyalty_card", choice=cards[-1])
    assert [(e.to, e.data["side"]) for e in events if e.type == "LoyaltySeen"] == [((HOLDER,), cards[-1])]
    assert not s.pending or s.pending[0].kind != "loyalty_card"


@pytest.mark.parametrize("first_leader", ["cleric", "trickster", "merlin", "minion"])
def test_with_a_trickster_and_a_cleric_the_reveal_looks_the_same_whoever_leads_first(first_leader):
    """Defect: a Cleric who was the first Leader checked nobody, so with a Trickster at the table the Reveal
    paused for a hidden Loyalty card in every game except those where the Cleric led first."""
    config = GameConfig(players=7, roles=("merlin", "assassin", "cleric", "trickster"))
    for seed in range(200):
        state, events = new_game(config, seed)
        if state.roles[state.first_leader] == first_leader:
            break
    assert state.stage == "reveal" and [e.type for e in events if e.public] == ["GameStarted"]
    public = public_view(state)
    assert public["waiting"] == {"kind": "loyalty_card", "seats": [], "hidden": True}
    assert public["stage"] == "reveal" and public["leader"] == state.first_leader
    (p,) = prompts(state, state.first_leader)
    # The Leader is asked for a Loyalty card without being told who looks (the Cleric stays hidden).
    assert p.kind == "loyalty_card" and "checker" not in p.info and p.info["source"] == "cleric"


def test_without_a_trickster_loyalty_checks_resolve_at_once():
    roles = ["merlin", "servant", "servant", "troublemaker", "assassin", "minion", "minion"]
    s, events = act(_lady_time(roles), HOLDER, "lady", (3,))
    assert not s.pending or s.pending[0].kind != "loyalty_card"
    assert [(e.to, e.data["side"]) for e in events if e.type == "LoyaltySeen"] == [((HOLDER,), "evil")]


# ---------------------------------------------------------------------------------------------
# Interactions
# ---------------------------------------------------------------------------------------------

# 8 players: 0 Good Lancelot, 1 Evil Lancelot, 2 Lunatic, 3 Brute, 4-7 Servants; no Merlin.
RESTRICTED = ["good_lancelot", "evil_lancelot", "lunatic", "brute", "servant", "servant", "servant", "servant"]


def _choices(state, seat):
    return sorted(prompts(state, seat)[0].choices)


def test_lancelot_switch_moves_the_variant2_fail_rule_and_leaves_the_lunatic_and_brute_rules_alone():
    """002 Variant 2: "Evil Lancelot may only play a Fail card"; the switch "applies to all aspects";
    Lunatic "must Fail every Quest"; Brute "may Fail only the first three Quests"."""
    s = _dealt_allegiance(RESTRICTED, [NO, SWITCH, NO, NO, NO])
    s = _success(s, (4, 5, 6))
    # Quest 2 begins with the Switch: the Good Lancelot card is now Evil, the Evil one Good.
    s, _ = propose(s, (0, 1, 2, 3))
    s, _ = vote(s)
    assert (s.sides[0], s.sides[1]) == (Side.EVIL, Side.GOOD)
    assert _choices(s, 0) == ["fail"] and _choices(s, 1) == ["success"]
    assert _choices(s, 2) == ["fail"] and _choices(s, 3) == ["fail", "success"]
    s = play_cards(s, {0: "fail", 2: "fail"})
    s = _success(s, (4, 5, 6, 7))
    # Quest 4: the Brute may no longer Fail; the Lunatic still must; Lancelot rules follow the sides.
    s, _ = propose(s, (0, 1, 2, 3, 4))
    s, _ = vote(s)
    assert _choices(s, 3) == ["success"] and _choices(s, 2) == ["fail"]
    assert _choices(s, 0) == ["fail"] and _choices(s, 1) == ["success"]


# 8 players: 0-1 Good Messengers, 2 Evil Messenger, 3-5 Servants, 6-7 Minions.
MESSENGERS_8 = ["good_messenger", "good_messenger", "evil_messenger", "servant", "servant", "servant", "minion", "minion"]


def test_messenger_backup_counts_only_message_cards_revealed_not_the_one_the_trapper_set_aside():
    """002 Messengers: a token for "each Message card played on a Quest"; Trapper: the card set aside "does
    not affect the results" and the Leader "cannot reveal" it. Three Good Message cards are put down, one
    is set aside: two tokens, so no backup, and the fifth quest's Fail stands."""
    s = make_state(MESSENGERS_8, options={"trapper": True})
    s = quest(s, (0, 3, 4, 5), {0: "good_message"}, trap=3)
    s = quest(s, (1, 3, 4, 5, 6), {1: "good_message", 6: "fail"}, trap=1)
    s = quest(s, (0, 1, 3, 4, 5), trap=3)
    s = quest(s, (2, 3, 4, 5, 6, 7), {6: "fail", 7: "fail"}, trap=3)
    assert s.results[:4] == [True, False, True, False]
    s = quest(s, (0, 1, 3, 4, 5, 6), {0: "good_message", 6: "fail"}, trap=3)
    assert public_view(s)["messengers"]["backup"] == {"good": 2, "evil": 0, "applied": None}
    assert s.results[4] is False and s.winner is Side.EVIL and s.win_reason == "three_failures"


def test_targeting_lady_of_the_lake_is_used_after_the_second_quest_played_whatever_its_slot():
    """000 Lady: "Immediately after the 2nd, 3rd, and 4th Quest is resolved"; with Targeting (RN) the
    quests played, not the slots: here slots 3 and 1 are played first."""
    roles = ["merlin", "servant", "servant", "servant", "assassin", "minion", "minion"]
    s = make_state(roles, options={"lady_of_the_lake": True, "targeting": True})
    s, _ = propose(s, (1, 2, 3), quest=2)
    s, _ = vote(s)
    s = play_cards(s)
    assert not s.pending and s.stage == "team"  # one quest played: no Lady yet
    s, _ = propose(s, (1, 2), quest=0)
    s, _ = vote(s)
    s = play_cards(s)
    assert s.pending and s.pending[0].kind == "lady" and s.pending[0].actors == [HOLDER]


# 7 players: 0 Good Rogue, 1 Merlin, 2-3 Servants, 4 Evil Rogue, 5 Assassin, 6 Minion.
ROGUES_7 = ["good_rogue", "merlin", "servant", "servant", "evil_rogue", "assassin", "minion"]


def test_rogue_partial_victory_when_evil_wins_by_five_rejections():
    """002 Rogue: "Either Rogue gets a partial victory if their Team wins ..."; five rejected Teams win the
    game for Evil at once (ruling: the Evil Rogue shares it, the Good Rogue does not, no Watch token)."""
    s = make_state(ROGUES_7)
    for _ in range(5):
        s, _ = reject(s)
    assert s.over and s.winner is Side.EVIL and s.win_reason == "five_rejections"
    assert s.winners == [4, 5, 6]
    assert public_view(s)["rogue"]["partial"] == [4] and public_view(s)["rogue"]["solo"] is None
    assert public_view(s)["rogue"]["watches"] == []


def test_sorcerer_magic_and_excalibur_the_switched_magic_no_longer_reverses():
    """002 Sorcerer: an odd number of Magic cards reverses the Quest; Excalibur: the switched card is
    replaced (ruling: Magic becomes a plain Success). S, M would fail; with the Magic switched it
    succeeds, and the holder privately sees the Magic."""
    roles = ["good_sorcerer", "servant", "servant", "servant", "evil_sorcerer", "minion", "minion"]
    s = make_state(roles, options={"excalibur": True})
    s = to_cards(s, (0, 1), excalibur=1)
    s = play_cards(s, {0: "magic"})
    s = answer(s, {"excalibur": 0})
    assert s.quests[-1].success is True and s.quests[-1].cards == {"success": 2}
    assert [(k.seat, k.label) for k in s.knowledge[1] if k.source == "excalibur"] == [(0, "magic")]


def _spy_next_to_the_first_receiver() -> tuple[GameState, int, int]:
    """A Resistance game whose Leader draws Overheard Conversation with a Spy next to the next seat."""
    for seed in range(500):
        state = start(7, seed=seed, theme=Theme.RESISTANCE)
        receiver = seat_of(state, 1)
        spies = [x for x in ((receiver - 1) % 7, (receiver + 1) % 7) if state.sides[x] is Side.EVIL]
        if spies and "overheard_conversation" in mod(state)["drawn"]:
            return state, receiver, spies[0]
    raise AssertionError("no seed seats a Spy next to the receiver of Overheard Conversation")


def test_plot_cards_in_the_resistance_theme_check_a_spys_loyalty():
    """003 The Plot Thickens with Spies: "Overheard Conversation" checks a neighbour; Spies show Evil."""
    state, receiver, spy = _spy_next_to_the_first_receiver()
    assert state.roles[spy] == "minion" and public_view(state)["theme"] == "resistance"
    state, _ = act(state, state.leader, "plot_deal", (receiver,), choice="overheard_conversation")
    assert public_view(state)["plot"]["names"]["overheard_conversation"] == "Overheard Conversation"
    with pytest.raises(InvalidTarget):
        act(state, receiver, "plot_overheard_conversation", ((receiver + 3) % 7,))
    state, events = act(state, receiver, "plot_overheard_conversation", (spy,))
    assert [(e.to, e.data["seat"], e.data["side"]) for e in events if e.type == "LoyaltySeen"] == [
        ((receiver,), spy, "evil")
    ]


# ---------------------------------------------------------------------------------------------
# Worked example: 002 "PLOT CARDS" (Deniz, Paula, Charles)
# ---------------------------------------------------------------------------------------------


def test_example_deniz_checks_paula_and_charles_holds_lead_to_victory():
    """ "The Leader draws 'Are You the One?' and 'Lead to Victory.' The Leader passes 'Are You the One?'
    to Deniz, who immediately uses it to check the loyalty of Paula, who is seated to his left. ... The
    Leader passes 'Lead to Victory' to Charles. Charles may not play the card immediately. He holds the
    card to play in the future." """
    state = drawing(7, ["overheard_conversation", "strong_leader"])
    leader = state.leader
    deniz, paula, charles = seat_of(state, 2), seat_of(state, 3), seat_of(state, 5)
    state, _ = act(state, leader, "plot_deal", (deniz,), choice="overheard_conversation")
    (p,) = prompts(state, deniz)  # immediately
    assert p.kind == "plot_overheard_conversation" and paula in p.targets
    state, events = act(state, deniz, "plot_overheard_conversation", (paula,))
    seen = [e for e in events if e.type == "LoyaltySeen"]
    assert [(e.to, e.data["seat"], e.data["side"]) for e in seen] == [((deniz,), paula, state.sides[paula].value)]
    assert mod(state)["discard"] == ["overheard_conversation"]
    state, _ = act(state, leader, "plot_deal", (charles,), choice="strong_leader")
    # Charles holds the card, face up; the Leader goes on to propose: Charles is not asked now.
    assert public_view(state)["plot"]["hands"][charles] == ["strong_leader"]
    assert state.stage == "team" and not state.pending and prompts(state, charles) == []
    # After a rejection, at the next Leader's turn, he may use it to become the Leader.
    state, _ = reject(state)
    assert state.pending[0].kind == "plot_strong_leader" and state.pending[0].actors == [charles]
    state, _ = act(state, charles, "plot_strong_leader", choice="play")
    assert state.leader == charles


def test_without_a_designation_or_a_minion_the_first_evil_character_who_may_assassinate_does():
    """From real deals: Morgana, never the Evil Rogue, whatever the seating."""
    config = GameConfig(players=5, roles=("merlin", "percival", "morgana", "evil_rogue"))
    assert not _codes(config, "error")
    for seed in range(20):
        state, _ = new_game(config, seed)
        assert assassin_seat(Ctx(state)) == state.roles.index("morgana")


def test_trapper_the_public_quest_track_shows_the_team_size_with_the_extra_member():
    """002 Trapper: "the Leader takes one more Team token than normal". Defect: the public quest track (the
    board's quest cells) showed the chart's sizes, one fewer than the Leader had to pick."""
    s = make_state(MESSENGERS_8, options={"trapper": True})
    view = public_view(s)
    assert [cell["size"] for cell in view["track"]] == [4, 5, 5, 6, 6]  # chart 3, 4, 4, 5, 5 plus one
    assert view["team_size"] == prompts(s, s.leader)[0].pick == 4
    assert [cell["size"] for cell in public_view(make_state(MESSENGERS_8))["track"]] == [3, 4, 4, 5, 5]


# --- whom the host may designate to assassinate (the settings panel asks the engine) -------------------


def test_assassin_choices_only_without_the_assassin_card_and_with_an_assassination_stage():
    from engine.modules.assassination import assassin_choices

    assert assassin_choices(GameConfig(players=7, roles=("merlin", "assassin", "morgana"))) == []
    assert assassin_choices(GameConfig(players=7, roles=("percival", "morgana"))) == []  # no Merlin: no stage
    assert assassin_choices(GameConfig(players=7, roles=("merlin", "morgana", "mordred"))) == [
        "morgana", "mordred", "minion",
    ]
    # every Evil seat taken by a character: no Minion to designate
    assert assassin_choices(GameConfig(players=5, roles=("merlin", "morgana", "mordred"))) == ["morgana", "mordred"]


def test_assassin_choices_leave_out_characters_who_may_not_assassinate():
    from engine.modules.assassination import assassin_choices

    config = GameConfig(players=7, roles=("merlin", "percival", "evil_rogue", "morgana"))
    assert "evil_rogue" not in assassin_choices(config) and "morgana" in assassin_choices(config)
    for role in assassin_choices(config):  # every choice offered is one the engine accepts
        chosen = config.model_copy(update={"assassin": role})
        assert not [i for i in validate_config(chosen) if i.level == "error"], role


def test_assassin_choices_for_the_messengers_without_merlin():
    from engine.modules.assassination import assassin_choices

    roles = ("good_messenger", "good_messenger", "evil_messenger")
    assert assassin_choices(GameConfig(players=7, roles=roles)) == ["evil_messenger", "minion"]
