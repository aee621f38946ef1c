"""A group's statistics item stays far below DynamoDB's 400 KB however many players it rated (its table
keeps the most active ones), and a player it no longer keeps is still rated there: their own item keeps
their row in the group, which comes back when they play there again (``stats.remembered``)."""
from __future__ import annotations

import random

import pytest

from gamebot.aws.dynamo import DynamoRepository
from gamebot.scores import ratings, stats
from gamebot.storage.store import FakeRepository
from scripts.bench_webhook import item_size

GROUP = -1009


def hostile_name(rng: random.Random) -> str:
    """40 characters of 4 bytes each, drawn at random (they compress badly): the longest a seat's name is."""
    return "".join(chr(rng.randrange(0x1F300, 0x1F5FF)) for _ in range(40))


def game(n: int, user_ids: list[int], rng: random.Random) -> stats.Outcome:
    evil = set(rng.sample(range(10), 4))
    won = rng.choice(("good", "evil"))
    return stats.Outcome(
        chat_id=GROUP, game_id=f"g{n}", theme="avalon", winner=won, user_ids=user_ids,
        names=[hostile_name(rng) for _ in user_ids], roles=["minion" if s in evil else "servant" for s in range(10)],
        sides=["evil" if s in evil else "good" for s in range(10)],
        winners=[s for s in range(10) if (s in evil) == (won == "evil")], reason="three_failures", title="Group")


def count(repo: FakeRepository, o: stats.Outcome) -> None:
    """What the delivery of a game's ``stats`` effect does (``handlers.statistics.tally``)."""
    writes = stats.writes(o, repo.get_many(stats.keys(o)))
    if writes:
        repo.transact(writes)


def stored_size(repo: FakeRepository, key: str) -> int:
    item = repo.items[key]
    return item_size(DynamoRepository.encode_item(item, item.version))


@pytest.mark.slow
def test_ten_thousand_rated_players_keep_the_groups_item_small_and_every_one_of_them_rated():
    rng = random.Random(5)
    repo = FakeRepository()
    for n in range(1000):  # 1,000 games of 10 players never seen before: 10,000 rated players
        count(repo, game(n, list(range(10 * n + 1, 10 * n + 11)), rng))
    key = stats.chat_stats_key(GROUP)
    body = repo.items[key].body
    assert body["games"] == 1000 and len(body["players"]) == stats.MAX_PLAYERS_PER_CHAT
    assert stored_size(repo, key) < 160 * 1024  # (DynamoDB refuses 400 KB)
    assert max(stored_size(repo, stats.user_stats_key(uid)) for uid in range(1, 10001, 97)) < 4 * 1024
    first = repo.items[stats.user_stats_key(1)].body["ratings"][str(GROUP)]
    assert "1" not in body["players"] and first["rated"] == 1  # dropped from the group's table long ago
    again = game(1000, [1] + list(range(20001, 20010)), rng)
    count(repo, again)
    row = repo.items[key].body["players"]["1"]
    assert row["rated"] == 2 and row["games"] == 2  # rated on from where they were, not from scratch
    fresh = {"mu": ratings.MU, "sigma": ratings.SIGMA}
    assert row["sigma"] < first["sigma"] < fresh["sigma"]  # (the belief sharpened twice)
    assert repo.items[stats.user_stats_key(1)].body["ratings"][str(GROUP)]["rated"] == 2


def test_the_players_of_the_game_counted_stay_in_a_full_table(monkeypatch):
    monkeypatch.setattr(stats, "MAX_PLAYERS_PER_CHAT", 12)
    rng = random.Random(2)
    repo = FakeRepository()
    count(repo, game(0, list(range(1, 11)), rng))
    count(repo, game(1, list(range(1, 6)) + list(range(11, 16)), rng))  # five regulars, five newcomers
    players = repo.items[stats.chat_stats_key(GROUP)].body["players"]
    assert len(players) == 12 and all(str(uid) in players for uid in [*range(1, 6), *range(11, 16)])
