"""Setup rules: player counts, team sizes, the random first Leader, configuration checks, themes."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import (
    GameConfig,
    GameState,
    InvalidConfig,
    Side,
    Theme,
    new_game,
    prompts,
    replay,
    validate_config,
)
from engine.errors import WrongTeamSize
from engine.policy import play_to_end
from tests.builder import make_state, replay_of
from tests.helpers import (
    GOOD_EVIL,
    TEAM_CHART,
    fails_needed,
    legal_setups,
    oracle_knowledge,
    play_game,
    propose,
    reveal_knowledge,
    run_quest,
)

PLAYERS = range(5, 11)


def _codes(config, level=None):
    return [i.code for i in validate_config(config) if level is None or i.level == level]


def _issue(config, code):
    return next(i for i in validate_config(config) if i.code == code)


# ---------------------------------------------------------------------------------------------
# Counts and team sizes
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_setup_good_and_evil_counts_follow_the_chart(players):
    good, evil = GOOD_EVIL[players]
    for roles in legal_setups(players)[::5]:
        config = GameConfig(players=players, roles=roles)
        state, _ = new_game(config, seed=players * 100 + len(roles))
        assert state.sides.count(Side.GOOD) == good and state.sides.count(Side.EVIL) == evil
        dealt = Counter(state.roles)
        # The chosen characters, once each; Loyal Servants and Minions fill the rest.
        for role in roles:
            assert dealt[role] == 1
        assert dealt["servant"] == good - sum(r in ("merlin", "percival") for r in roles)
        assert dealt["minion"] == evil - sum(r not in ("merlin", "percival") for r in roles)


@pytest.mark.parametrize("players", PLAYERS)
def test_team_sizes_follow_the_chart_for_each_quest(players):
    good, evil = GOOD_EVIL[players]
    roles = ["servant"] * good + ["minion"] * evil
    s = make_state(roles, leader=0)
    fail_plan = [False, True, False, True]  # S, F, S, F: the game reaches the 5th quest
    for slot in range(5):
        size = TEAM_CHART[players][slot]
        assert prompts(s, s.leader)[0].pick == size
        for wrong in (size - 1, size + 1):
            with pytest.raises(WrongTeamSize) as err:
                propose(s, range(wrong))
            assert err.value.params["size"] == size
        if slot == 4:
            break
        minions = list(range(good, players))[: fails_needed(players, slot)]
        team = list(range(size - len(minions))) + minions
        s, _ = run_quest(s, team, fails=set(minions) if fail_plan[slot] else set())
        assert s.results[slot] is (not fail_plan[slot])


# ---------------------------------------------------------------------------------------------
# The first Leader
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [5, 10])
def test_random_first_leader_is_deterministic_from_the_seed(players):
    config = GameConfig(players=players, roles=("merlin", "assassin"))
    for seed in range(20):
        a, _ = new_game(config, seed)
        b, _ = new_game(config, seed)
        assert a == b
        assert a.leader == a.first_leader == b.leader
        assert a.roles == b.roles


@pytest.mark.parametrize("players", [5, 10])
def test_random_first_leader_varies_across_seeds(players):
    config = GameConfig(players=players, roles=("merlin", "assassin"))
    leaders = Counter(new_game(config, seed)[0].leader for seed in range(200))
    assert set(leaders) == set(range(players))  # every seat can lead first
    deals = {tuple(new_game(config, seed)[0].roles) for seed in range(50)}
    assert len(deals) > 10


CHOSEN = GameConfig(
    players=7,
    roles=("merlin", "assassin", "percival", "morgana"),
    options={"plot_cards": True, "lady_of_the_lake": True},
)
CHOSEN_DEAL = ["servant", "morgana", "merlin", "minion", "percival", "assassin", "servant"]


@pytest.mark.parametrize("leader", range(7))
def test_a_chosen_deal_and_first_leader_are_recorded_and_the_game_replays_identically(leader):
    state, events = new_game(CHOSEN, 3, deal=CHOSEN_DEAL, first_leader=leader)
    assert state.roles == state.deal == CHOSEN_DEAL
    assert state.leader == state.first_leader == state.chosen_leader == leader
    assert [e.data["leader"] for e in events if e.type == "GameStarted"] == [leader]
    assert state.mods["lady_of_the_lake"]["holder"] == (leader - 1) % 7  # to the Leader's right
    # The seed's randomness is drawn as if nothing were chosen: the Plot deck is the seed's own.
    drawn, _ = new_game(CHOSEN, 3)
    assert state.rng_calls == drawn.rng_calls
    assert state.mods["plot_cards"]["deck"] == drawn.mods["plot_cards"]["deck"]
    final = play_to_end(state, random.Random(leader))
    assert final.over
    stored = GameState.from_json(final.to_json())
    assert stored == final and stored.chosen_leader == leader  # the choice is kept with the game
    assert replay(CHOSEN, 3, stored.log, stored.deal, stored.chosen_leader) == final
    assert replay_of(stored) == final  # the tests' builder replays its games the same way


@pytest.mark.parametrize("leader", [-1, 7])
def test_a_first_leader_outside_the_table_is_refused(leader):
    with pytest.raises(InvalidConfig) as err:
        new_game(CHOSEN, 3, deal=CHOSEN_DEAL, first_leader=leader)
    assert [p.code for p in err.value.problems] == ["bad_leader"]


# ---------------------------------------------------------------------------------------------
# Configuration checks (host-readable messages)
# ---------------------------------------------------------------------------------------------


def test_config_morgana_without_percival_is_an_error():
    config = GameConfig(players=7, roles=("merlin", "assassin", "morgana"))
    problem = _issue(config, "morgana_needs_percival")
    assert problem.level == "error" and "Percival" in problem.message
    with pytest.raises(InvalidConfig) as err:
        new_game(config, 1)
    assert "Percival" in str(err.value)
    assert "morgana_needs_percival" not in _codes(
        GameConfig(players=7, roles=("merlin", "assassin", "morgana", "percival"))
    )


@pytest.mark.parametrize("players", PLAYERS)
def test_config_more_evil_characters_than_evil_seats_is_an_error(players):
    evil_seats = GOOD_EVIL[players][1]
    roles = ("assassin", "morgana", "mordred", "oberon")[: evil_seats + 1]
    config = GameConfig(players=players, roles=(*roles, "percival"))
    if len(roles) <= evil_seats:  # 10 players: 4 Evil seats, only 4 Evil base characters
        assert "too_many_evil" not in _codes(config)
        return
    problem = _issue(config, "too_many_evil")
    assert problem.level == "error"
    assert f"only {evil_seats} Evil seats" in problem.message
    with pytest.raises(InvalidConfig):
        new_game(config, 0)


def test_config_unknown_role_is_an_error():
    config = GameConfig(players=6, roles=("merlin", "assassin", "gandalf"))
    problem = _issue(config, "unknown_role")
    assert problem.level == "error" and "gandalf" in problem.message


@pytest.mark.parametrize("players", [0, 4, 11])
def test_config_wrong_player_count_is_an_error(players):
    config = GameConfig(players=players, roles=())
    problem = _issue(config, "player_count")
    assert problem.level == "error" and "5 to 10" in problem.message
    with pytest.raises(InvalidConfig):
        new_game(config, 0)


def test_config_same_character_twice_or_a_filler_is_an_error():
    assert "duplicate_role" in _codes(GameConfig(players=7, roles=("merlin", "merlin", "assassin")), "error")
    assert "filler_role" in _codes(GameConfig(players=7, roles=("merlin", "assassin", "servant")), "error")


def test_config_unknown_option_is_an_error():
    problem = _issue(GameConfig(players=7, options={"lady_of_the_pond": True}), "unknown_option")
    assert problem.level == "error" and "lady_of_the_pond" in problem.message


def test_config_percival_in_five_players_without_mordred_or_morgana_is_a_warning():
    config = GameConfig(players=5, roles=("merlin", "assassin", "percival"))
    problem = _issue(config, "percival_five_players")
    assert problem.level == "warning" and "Mordred or Morgana" in problem.message
    new_game(config, 0)  # a warning does not forbid the game
    for extra in ("mordred", "morgana"):
        assert "percival_five_players" not in _codes(
            GameConfig(players=5, roles=("merlin", "percival", extra))
        )
    assert "percival_five_players" not in _codes(GameConfig(players=6, roles=("merlin", "assassin", "percival")))


def test_config_lady_of_the_lake_under_seven_players_is_a_warning():
    problem = _issue(GameConfig(players=6, options={"lady_of_the_lake": True}), "recommended_players")
    assert problem.level == "warning"
    assert problem.params == {"plugin": "lady_of_the_lake", "players": 7}
    assert "recommended_players" not in _codes(GameConfig(players=7, options={"lady_of_the_lake": True}))


def test_config_merlin_without_assassin_needs_an_evil_designated_assassin():
    base = ("merlin", "morgana", "percival")
    assert not _codes(GameConfig(players=7, roles=base), "error")  # the engine designates a Minion
    assert not _codes(GameConfig(players=7, roles=base, assassin="morgana"), "error")
    assert not _codes(GameConfig(players=7, roles=base, assassin="minion"), "error")
    not_evil = _issue(GameConfig(players=7, roles=base, assassin="percival"), "assassin_not_evil")
    assert not_evil.level == "error" and "Evil" in not_evil.message
    absent = _issue(GameConfig(players=7, roles=base, assassin="mordred"), "assassin_not_in_play")
    assert absent.level == "error" and "mordred" in absent.message


def test_config_designated_minion_assassin_needs_a_minion_seat():
    # 5 players, both Evil seats are special characters: there is no Minion to designate.
    config = GameConfig(players=5, roles=("merlin", "percival", "morgana", "mordred"), assassin="minion")
    problem = _issue(config, "assassin_not_in_play")
    assert problem.level == "error" and "minion" in problem.message
    with pytest.raises(InvalidConfig):
        new_game(config, 0)


def test_config_assassin_without_merlin_is_a_warning():
    problem = _issue(GameConfig(players=5, roles=("assassin",)), "assassin_without_merlin")
    assert problem.level == "warning"


def test_games_without_merlin_are_allowed():
    config = GameConfig(players=6, roles=("percival", "mordred"))
    assert not _codes(config, "error")
    state, _ = new_game(config, 3)
    assert "merlin" not in state.roles


# ---------------------------------------------------------------------------------------------
# Themes and Blind Spies
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_resistance_theme_plays_with_spies_and_resistance(players):
    config = GameConfig(theme=Theme.RESISTANCE, players=players, roles=())
    assert not _codes(config, "error")
    game = play_game(config, seed=players, policy="ai_seats")
    start = game.start
    good, evil = GOOD_EVIL[players]
    # Resistance operatives (Good) and Spies (Evil) only.
    assert Counter(start.roles) == {"servant": good, "minion": evil}
    # "Spies open your eyes ... make sure that you know all the other Spies."
    spies = {s for s in range(players) if start.sides[s] is Side.EVIL}
    for seat in range(players):
        seen = {k.seat for k in start.knowledge[seat] if k.label == "evil"}
        assert seen == (spies - {seat} if seat in spies else set())
    assert game.final.over and game.final.win_reason in ("three_successes", "three_failures", "five_rejections")
    assert not [e for e in game.events if e.type.startswith("Assassination")]


def test_resistance_theme_refuses_avalon_characters():
    problem = _issue(GameConfig(theme=Theme.RESISTANCE, players=5, roles=("merlin",)), "wrong_theme")
    assert problem.level == "error" and "merlin" in problem.message


@pytest.mark.parametrize("theme", [Theme.RESISTANCE, Theme.AVALON])
def test_blind_spies_skips_the_spy_reveal(theme):
    roles = () if theme is Theme.RESISTANCE else ("merlin", "assassin", "percival", "morgana")
    config = GameConfig(theme=theme, players=8, roles=roles, options={"blind_spies": True})
    for seed in range(10):
        state, _ = new_game(config, seed)
        for seat in range(8):
            if state.sides[seat] is Side.EVIL:
                assert state.knowledge[seat] == []  # Evil does not know Evil
        assert reveal_knowledge(state) == oracle_knowledge(state.roles, config)
    if theme is Theme.AVALON:
        merlin = state.roles.index("merlin")
        assert {k.seat for k in state.knowledge[merlin]} == {
            s for s in range(8) if state.sides[s] is Side.EVIL
        }
        assert "blind_spies_with_merlin" in _codes(config, "warning")
