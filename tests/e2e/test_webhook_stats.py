"""End to end: ratings and /stats through ``lambda_handler`` (moto's DynamoDB, the fake Bot API server).
A group whose statistics were written before ratings existed plays a game: its end is counted after
the commit, once, even when Telegram delivers the final update again; /stats shows the leaderboard in
the group and the player's own in private, in English and in French."""
from __future__ import annotations

import html
import random

from tests.e2e.driver import Driver, Policy


def _seed(repo, group: int, players: list[int]) -> None:
    """Statistics from before ratings: two finished games, players without ratings, assassinations
    without a target; and two players already rated twice in the group."""
    from gamebot.scores import ratings, stats
    from gamebot.storage.store import Item

    rows = {str(u): {"name": f"Old{u}", "games": 2, "wins": 1} for u in players}
    for u in players[:2]:
        rows[str(u)].update(mu=ratings.MU + u, sigma=6.0, rated=2)
    repo.put(Item(stats.chat_stats_key(group), {
        "games": 2, "recent": ["old1", "old2"], "themes": {"avalon": {"games": 2, "good": 1, "evil": 1}},
        "roles": {"merlin": {"games": 2, "wins": 1}}, "players": rows,
        "assassinations": {"attempts": 1, "hits": 1}}), None)
    repo.put(Item(stats.user_stats_key(players[0]), {
        "games": 2, "wins": 1, "recent": ["old1", "old2"], "name": "Old",
        "roles": {"merlin": {"games": 2, "wins": 1}}, "sides": {"good": {"games": 2, "wins": 1}}}), None)


def _statistics(repo, group: int, players: list[int]) -> dict:
    from gamebot.scores import stats

    found = repo.get_many([stats.chat_stats_key(group), *(stats.user_stats_key(u) for u in players)])
    return {k: v.body for k, v in found.items()}


def test_a_game_counts_once_in_the_ratings_and_stats_shows_them_in_english_and_french(table):
    import app

    from gamebot.scores import ratings, stats

    players = [1, 2, 3, 4, 5]
    repo = app.service().repo
    _seed(repo, table.group, players)
    table.open_lobby(players)
    table.start_game(1)
    final = []
    deliver = table.post

    def post(update, *args):  # remember the last press: the one that ends the game
        if "callback_query" in update:
            final[:] = [update]
        return deliver(update, *args)

    table.post = post
    driver = Driver(table, table.group, players, Policy(rng=random.Random(5)))
    driver.play()
    assert driver.over()
    counted = _statistics(repo, table.group, players)
    chat = counted[stats.chat_stats_key(table.group)]
    assert chat["games"] == 3 and chat["v"] == stats.VERSION and sum(chat["reasons"].values()) == 1
    assert all(chat["players"][str(u)]["games"] == 3 for u in players)
    assert [chat["players"][str(u)]["rated"] for u in players] == [3, 3, 1, 1, 1]
    assert chat["targets"]["merlin"]["attempts"] >= 1  # the old assassination counts as Merlin's
    assert counted[stats.user_stats_key(1)]["games"] == 3

    # Telegram delivers the final press again: nothing is counted twice
    assert table.post(final[0]) == 200
    assert _statistics(repo, table.group, players) == counted

    table.command(3, "/stats")
    text = html.unescape(table.fake.texts(table.group)[-1])
    assert text.startswith("📊 <b>Statistics of Avalon Test Group</b>")
    assert "<b>Avalon</b> — games: 3 · Good won: " in text
    rows = chat["players"]
    first, second = sorted((rows["1"], rows["2"]), key=ratings.ordinal, reverse=True)
    assert (f"🏆 <b>Leaderboard</b> (rating · games)\n1. {first['name']} — {ratings.shown(first)} · 3 games\n"
            f"2. {second['name']} — {ratings.shown(second)} · 3 games\n"
            f"<i>A player is ranked after {ratings.RANKED_AFTER} games; not ranked yet: 3.</i>\n"
            "<i>Rating: 1000 + 10 × a cautious estimate of skill (openskill); a win never lowers it.</i>") in text
    assert "<b>Win rate by side</b>\n😇 Good / Resistance: " in text and "😈 How Evil won: " in text
    assert "🗡 The Assassin found Merlin: " in text and "<b>Win rate by character</b>\n• " in text
    table.command(1, "/stats", chat=1)
    mine = html.unescape(table.fake.texts(1)[-1])
    assert mine.startswith("📊 <b>Your statistics, ") and "Games: 3 · wins: " in mine
    assert "<b>Your rating</b> (games rated)\n⭐ Avalon Test Group: " in mine and "<b>Win rate by character</b>" in mine

    table.command(1, "/language fr")
    table.command(3, "/stats")
    fr = html.unescape(table.fake.texts(table.group)[-1])
    assert fr.startswith("📊 <b>Statistiques · Avalon Test Group</b>")
    assert f"🏆 <b>Classement</b> (cote · parties)\n1. {first['name']} — " in fr
    assert "<b>Victoires par camp</b>\n😇 Bien / Résistance : " in fr and "😈 Victoires du Mal : " in fr
    assert "<b>Victoires par personnage</b>" in fr
    french = dict(table.user(2), language_code="fr")
    table.users[2] = french
    table.command(2, "/stats", chat=2)
    mine = html.unescape(table.fake.texts(2)[-1])
    assert mine.startswith("📊 <b>Vos statistiques, ") and "<b>Votre cote</b> (parties comptées)\n⭐ " in mine


def test_a_newcomer_after_a_win_and_a_loss_reads_unranked_not_a_negative_rating(table):
    """Two rated games, one won and one lost: the ordinal is about -1; /stats in private says how far the
    player is from being ranked, and shows no number."""
    import app

    from gamebot.scores import ratings, stats
    from gamebot.storage.store import Item

    rows = {str(u): {"name": f"P{u}"} for u in range(1, 6)}
    for game, won in (("g1", "good"), ("g2", "evil")):
        sides = ["good", "good", "good", "evil", "evil"]
        ratings.update(rows, stats.Outcome(chat_id=table.group, game_id=game, theme="avalon", winner=won,
                                           user_ids=[1, 2, 3, 4, 5], names=[f"P{u}" for u in range(1, 6)],
                                           roles=["servant"] * 3 + ["minion"] * 2, sides=sides,
                                           winners=[i for i, s in enumerate(sides) if s == won]))
    assert ratings.ordinal(rows["1"]) < 0
    app.service().repo.put(Item(stats.user_stats_key(1), {
        "games": 2, "wins": 1, "recent": ["g1", "g2"], "name": "P1", "sides": {"good": {"games": 2, "wins": 1}},
        "ratings": {str(table.group): {"title": "Avalon Test Group", **rows["1"]}}}), None)
    table.start_private(1)
    table.command(1, "/stats", chat=1)
    mine = html.unescape(table.fake.texts(1)[-1])
    assert "<b>Your rating</b> (games rated)\n⭐ Avalon Test Group: unranked, 2 of 3 games" in mine
    assert "-1" not in mine and "-0" not in mine
