"""Skill ratings (gamebot.scores.ratings, openskill's Weng-Lin model) and the counting of games
(gamebot.scores.stats): property tests on random tables, outcomes and redeliveries."""
from __future__ import annotations

import copy
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from gamebot.scores import ratings, stats
from gamebot.storage.store import Item

GROUP = -100


@st.composite
def games(draw, game_id: str = "g1", user_ids: list[int] | None = None):
    """A finished game's outcome: 5 to 10 seats, Good and Evil (at least one each), won by a side or by
    one Rogue alone."""
    n = draw(st.integers(5, 10)) if user_ids is None else len(user_ids)
    evil = draw(st.integers(1, n - 1))
    sides = ["good"] * (n - evil) + ["evil"] * evil
    sides = draw(st.permutations(sides))
    kind = draw(st.sampled_from(["good", "evil", "solo"]))
    if kind == "solo":
        winners = [draw(st.integers(0, n - 1))]
        winner = sides[winners[0]]
    else:
        winners = [seat for seat, side in enumerate(sides) if side == kind]
        winner = kind
    ids = user_ids if user_ids is not None else list(range(1, n + 1))
    reason = {"good": "three_successes", "evil": draw(st.sampled_from(
        ["three_failures", "five_rejections", "merlin_assassinated"]))}.get(kind, f"{winner}_rogue_solo")
    return stats.Outcome(chat_id=GROUP, game_id=game_id, theme="avalon", winner=winner, user_ids=list(ids),
                         names=[f"P{u}" for u in ids], roles=["servant" if s == "good" else "minion" for s in sides],
                         sides=list(sides), winners=winners, reason=reason, title="Group")


priors = st.fixed_dictionaries({"mu": st.floats(-20, 70), "sigma": st.floats(0.05, ratings.SIGMA),
                                "rated": st.integers(0, 500)})


@settings(max_examples=300, deadline=None)
@given(o=games(), data=st.data())
def test_the_ratings_of_a_games_winners_never_go_down(o, data):
    rows = {str(uid): data.draw(priors) for uid in o.user_ids}
    before = copy.deepcopy(rows)
    ratings.update(rows, o)
    for seat, uid in enumerate(o.user_ids):
        old, new = before[str(uid)], rows[str(uid)]
        assert new["rated"] == old["rated"] + 1
        assert new["sigma"] <= old["sigma"] + 1e-12  # a belief only sharpens
        if seat in o.winners:
            assert new["mu"] >= old["mu"] and ratings.ordinal(new) >= ratings.ordinal(old) - 1e-12
        elif len(o.winners) > 1:  # (beside a Rogue's solo win, every loser's team shares the last rank)
            assert new["mu"] <= old["mu"]


@given(o=games())
def test_each_side_is_a_team_and_a_rogues_solo_win_is_a_team_of_its_own(o):
    teams = ratings.teams(o.winners, o.sides)
    assert teams[0] == sorted(o.winners)
    assert sorted(seat for team in teams for seat in team) == list(range(len(o.sides)))
    for team in teams[1:]:
        assert len({o.sides[seat] for seat in team}) == 1
    assert len(teams) == (3 if len(o.winners) == 1 and sum(s == o.sides[o.winners[0]] for s in o.sides) > 1 else 2)


def apply(items: dict[str, Item], o: stats.Outcome) -> None:
    """What a ``stats`` effect's delivery does: read the items, write what ``stats.writes`` returns."""
    for w in stats.writes(o, {k: copy.deepcopy(items[k]) for k in stats.keys(o) if k in items}):
        assert w.expect == (items[w.item.key].version if w.item.key in items else None)
        items[w.item.key] = Item(w.item.key, w.item.body, (w.expect or 0) + 1)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), count=st.integers(1, 6))
def test_replaying_final_updates_changes_nothing(data, count):
    """Games of one group (some players in every game), each delivered once or several times, a
    redelivery right away or after later games: every item ends as if each game was counted once."""
    people = list(range(1, 13))
    played = []
    for i in range(count):
        ids = data.draw(st.lists(st.sampled_from(people), min_size=5, max_size=10, unique=True))
        played.append(data.draw(games(game_id=f"g{i}", user_ids=ids)))
    deliveries = [o for o in played for _ in range(data.draw(st.integers(1, 3)))]
    for _ in range(data.draw(st.integers(0, 4))):  # a late redelivery of an earlier game
        deliveries.append(data.draw(st.sampled_from(played)))
    once: dict[str, Item] = {}
    for o in played:
        apply(once, o)
    replayed: dict[str, Item] = {}
    for o in deliveries:
        apply(replayed, o)
    assert {k: v.body for k, v in replayed.items()} == {k: v.body for k, v in once.items()}
    chat = once[stats.chat_stats_key(GROUP)].body
    assert chat["games"] == count and sum(r["rated"] for r in chat["players"].values()) == sum(
        len(o.user_ids) for o in played)


def test_statistics_items_from_before_ratings_keep_working():
    """A group's item of the first version: players without ratings, assassinations without targets."""
    old = {"games": 4, "recent": ["a", "b"], "themes": {"avalon": {"games": 4, "good": 1, "evil": 3}},
           "players": {"1": {"name": "Ann", "games": 4, "wins": 2}}, "assassinations": {"attempts": 3, "hits": 2},
           "roles": {"merlin": {"games": 4, "wins": 1}}}
    o = stats.Outcome(chat_id=GROUP, game_id="g", theme="avalon", winner="evil", user_ids=[1, 2, 3, 4, 5],
                      names=list("ABCDE"), roles=["merlin", "assassin", "servant", "servant", "minion"],
                      sides=["good", "evil", "good", "good", "evil"], winners=[1, 4], assassin=1,
                      assassin_hit=True, reason="merlin_assassinated", target="merlin")
    items = {stats.chat_stats_key(GROUP): Item(stats.chat_stats_key(GROUP), old, 7)}
    apply(items, o)
    chat = items[stats.chat_stats_key(GROUP)].body
    assert chat["v"] == stats.VERSION and chat["games"] == 5
    assert chat["assassinations"] == {"attempts": 4, "hits": 3} and chat["targets"] == {
        "merlin": {"attempts": 4, "hits": 3}}
    ann = chat["players"]["1"]
    assert (ann["games"], ann["wins"], ann["rated"]) == (5, 2, 1) and ann["mu"] < ratings.MU
    assert stats.migrate(old)["targets"] == {"merlin": {"attempts": 3, "hits": 2}} and "targets" not in old


def test_an_outcome_survives_the_outbox():
    o = stats.Outcome(chat_id=GROUP, game_id="g", theme="avalon", winner="good", user_ids=[1, 2], names=["A", "B"],
                      roles=["merlin", "assassin"], sides=["good", "evil"], winners=[0], idle={2: 3})
    from gamebot.storage.effects import Effect

    effect = Effect.model_validate_json(Effect(seq=1, op="stats", chat=0, stats=o.data()).model_dump_json())
    assert stats.Outcome.of(effect.stats) == o


# --- the scale players read ------------------------------------------------------------------------


def _outcome(ids: list[int], sides: list[str], won: str, game_id: str = "g") -> stats.Outcome:
    return stats.Outcome(chat_id=GROUP, game_id=game_id, theme="avalon", winner=won, user_ids=ids,
                         names=[f"P{u}" for u in ids], roles=["servant" if s == "good" else "minion" for s in sides],
                         sides=sides, winners=[i for i, s in enumerate(sides) if s == won], title="Group")


def _one_win_and_one_loss() -> dict[str, dict]:
    """Player 1's row in the group after winning a first game and losing a second (five players each)."""
    rows = {str(u): {"name": f"P{u}"} for u in range(1, 6)}
    sides = ["good", "good", "good", "evil", "evil"]
    ratings.update(rows, _outcome([1, 2, 3, 4, 5], sides, "good", "g1"))
    ratings.update(rows, _outcome([1, 2, 3, 4, 5], sides, "evil", "g2"))
    return rows


def test_a_newcomer_after_a_win_and_a_loss_is_unranked_and_shown_no_negative_number():
    from gamebot.messages import stats as shown
    from gamebot.messages.table import Table

    row = _one_win_and_one_loss()["1"]
    assert ratings.ordinal(row) < 0 and row["rated"] == 2  # (the ordinal itself: about -1)
    body = {"games": 2, "wins": 1, "name": "P1", "ratings": {str(GROUP): dict(row, title="Group")}}
    for lang in ("en", "fr", "ru"):
        text = shown.user_text(Table(chat_id=1, game_id="", lang=lang), body, "P1")
        rating = text.split("⭐", 1)[1].split("\n", 1)[0]  # the line of the group's rating
        assert not re.search(r"-\d|\d\.\d", rating), rating
    text = shown.user_text(Table(chat_id=1, game_id="", lang="en"), body, "P1")
    assert "⭐ Group: unranked, 2 of 3 games" in text and "Rating: 1000 + 10 ×" not in text


def test_a_ranked_player_reads_a_whole_number_near_1000():
    from gamebot.messages import stats as shown
    from gamebot.messages.table import Table

    rows = _one_win_and_one_loss()
    sides = ["evil", "good", "good", "good", "evil"]
    ratings.update(rows, _outcome([1, 2, 3, 4, 5], sides, "evil", "g3"))  # a third game, won
    row = rows["1"]
    assert ratings.ranked(row) and ratings.shown(row) == round(1000 + 10 * ratings.ordinal(row))
    assert 950 < ratings.shown(row) < 1150
    body = {"games": 3, "wins": 2, "name": "P1", "ratings": {str(GROUP): dict(row, title="Group")}}
    text = shown.user_text(Table(chat_id=1, game_id="", lang="en"), body, "P1")
    assert f"⭐ Group: {ratings.shown(row)} (3 games)" in text and "<i>Rating: 1000 + 10 × " in text
    for r in rows.values():
        r["games"] = 3
    group = shown.group_text(Table(chat_id=GROUP, game_id="", lang="en"),
                             {"games": 3, "players": rows, "themes": {"avalon": {"games": 3}}}, "Group")
    assert f". P1 — {ratings.shown(row)} · 3 games" in group


def test_the_scale_stays_positive_in_practice():
    """Random groups (12 people, 400 games of 5 to 10, either side winning) keep every ranked player
    between 700 and 1300; someone who loses every one of 300 games is still above 0. ``shown`` is never
    below 0 anyway, and orders players as the ordinal does."""
    import random

    rng = random.Random(4)
    rows: dict[str, dict] = {str(u): {"name": f"P{u}"} for u in range(12)}
    seen = []
    for g in range(400):
        n = rng.randint(5, 10)
        ids = rng.sample(range(12), n)
        evil = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}[n]
        sides = rng.sample(["good"] * (n - evil) + ["evil"] * evil, n)
        ratings.update(rows, _outcome(ids, sides, rng.choice(["good", "evil"]), f"g{g}"))
        seen += [ratings.shown(r) for r in rows.values() if ratings.ranked(r)]
    assert 700 <= min(seen) and max(seen) <= 1300
    loser: dict[str, dict] = {str(u): {} for u in range(10)}
    for g in range(300):
        n = rng.randint(5, 10)
        ids = [0, *rng.sample(range(1, 10), n - 1)]
        evil = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}[n]
        sides = rng.sample(["good"] * (n - evil) + ["evil"] * evil, n)
        ratings.update(loser, _outcome(ids, sides, "good" if sides[0] == "evil" else "evil", f"l{g}"))
    assert 0 < ratings.shown(loser["0"]) < 500
    assert ratings.shown({"mu": -500.0, "sigma": 1.0}) == 0
    ordered = sorted(rows.values(), key=ratings.ordinal)
    assert [ratings.shown(r) for r in ordered] == sorted(ratings.shown(r) for r in ordered)
