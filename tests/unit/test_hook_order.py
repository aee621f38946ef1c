"""The order in which plug-ins' hooks run, resolved from their named places (engine.hook_order).

One table for the whole engine: change a place and this test shows every hook it moves. The full
order is also what ``GameState.hook_i`` indexes, so stored games depend on it staying put.
"""
import pytest

from engine import GameConfig
from engine.hook_order import PLACES, check_place, resolve
from engine.plugin import ALL, Plugin, active_plugins
from engine.stages import HOOK_STAGES

FULL_ORDER = [
    "loyalty", "timeouts",  # engine
    "targeting",  # quest_choice
    "lancelot_allegiance",  # allegiance
    "assassin", "brute", "cleric", "evil_lancelot", "evil_messenger", "evil_rogue", "evil_sorcerer",
    "good_lancelot", "good_messenger", "good_rogue", "good_sorcerer", "lunatic", "merlin", "minion",
    "mordred", "morgana", "oberon", "percival", "revealer", "servant", "trickster", "troublemaker",  # characters
    "blind_spies", "rogue", "sorcerer",  # rules
    "messengers",  # message_cards
    "lady_of_the_lake",  # lady
    "excalibur",  # switch
    "trapper",  # set_aside
    "plot_cards",  # plot
    "untrustworthy_servant",  # recruitment
    "assassination",  # assassination
]

# hook -> the plug-ins that implement it, in the order they run
BY_HOOK = {
    "setup": [
        "lancelot_allegiance", "rogue", "messengers", "lady_of_the_lake", "excalibur", "trapper",
        "plot_cards", "untrustworthy_servant", "assassination",
    ],
    # the stage hooks, in the order of the round
    "on_reveal": ["cleric"],
    "on_round_start": ["lancelot_allegiance"],
    "before_team": ["excalibur", "plot_cards"],
    "on_team_proposed": ["excalibur", "plot_cards"],
    "on_votes_revealed": ["plot_cards"],
    "on_team_approved": ["lancelot_allegiance", "rogue"],
    "before_cards": ["plot_cards"],
    # count Message cards, switch (Excalibur), set aside (Trapper), look at cards (Plot: Ambush...)
    "on_cards_played": ["messengers", "excalibur", "trapper", "plot_cards"],
    "on_quest_resolved": ["revealer", "rogue", "messengers"],
    "after_quest": ["lady_of_the_lake", "excalibur", "plot_cards"],
    # Recruitment, then Assassination; the winners are settled once both are done
    "on_game_end": ["untrustworthy_servant", "assassination"],
    # the pure adjustments
    "on_card_played": ["plot_cards"],
    "check_proposal": [],
    "team_size_bonus": ["trapper"],
    "adjust_cards": ["lancelot_allegiance", "brute", "lunatic", "rogue", "sorcerer", "messengers"],
    # Magic reversals first, then the Messengers' backup (it reads them)
    "adjust_tally": ["sorcerer", "messengers"],
    "adjust_winners": ["rogue"],
    "quest_slots": ["targeting"],
}


def _implements(plugin: Plugin, hook: str) -> bool:
    return getattr(type(plugin), hook) is not getattr(Plugin, hook)


def test_resolved_hook_order_of_every_stage():
    resolved = resolve(ALL.values())
    assert [p.id for p in resolved] == FULL_ORDER
    # every place is used, and the ids within a place are sorted
    assert [p.place for p in resolved] == sorted((p.place for p in resolved), key=PLACES.index)
    assert {p.place for p in resolved} == set(PLACES)
    stage_hooks = [hook for hook, _ in HOOK_STAGES.values()]
    assert set(stage_hooks) <= set(BY_HOOK)
    got = {hook: [p.id for p in resolved if _implements(p, hook)] for hook in BY_HOOK}
    assert got == BY_HOOK
    # a game runs its plug-ins in that order too
    config = GameConfig(
        players=10,
        roles=("merlin", "assassin", "percival", "morgana", "untrustworthy_servant", "good_lancelot",
               "evil_lancelot"),
        options={"lady_of_the_lake": True, "excalibur": True, "trapper": True, "plot_cards": True,
                 "targeting": True, "lancelot": "bigbox_switch"},
    )
    ids = [p.id for p in active_plugins(config)]
    assert ids == [i for i in FULL_ORDER if i in ids]
    assert ids.index("excalibur") < ids.index("trapper") < ids.index("plot_cards")
    assert ids.index("untrustworthy_servant") < ids.index("assassination")


def test_an_unknown_place_is_refused():
    with pytest.raises(ValueError, match="unknown hook place"):
        check_place("someone", "before_everything")
