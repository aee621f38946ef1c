"""/nextgame: told once, in private, when the next lobby opens in the group; then the subscription ends."""
from __future__ import annotations

from gamebot.storage import subscribers
from localdev import updates as U
from tests.unit.gamebot_fakes import GROUP, Harness, session


def subscribed(h: Harness) -> list[int]:
    """Who waits to be told, as the subscribers' items hold them (never the chat's item)."""
    return sorted(int(uid) for shard in subscribers.waiting(h.repo, GROUP) for uid in shard.subs)


def _notices(h: Harness, uid: int) -> list[str]:
    return [o.text for o in h.io.outs if o.chat_id == uid and o.tag == "nextgame"]


def test_told_once_when_the_next_lobby_opens_then_the_subscription_ends(h):
    h.send(U.start(h.user(7)))
    group_before = len(h.io.texts(GROUP))
    h.command(7, "/nextgame")
    assert "I will tell you here when the next game opens" in h.io.texts(7)[-1]
    assert len(h.io.texts(GROUP)) == group_before  # confirmed in private: nothing in the group
    assert subscribed(h) == [7]
    assert f"chat#{GROUP}" not in h.repo.items  # (subscribing does not touch the chat's item)
    h.lobby([1, 2, 3, 4, 5])
    assert len(_notices(h, 7)) == 2 and "A new game is open" in _notices(h, 7)[-1]
    assert subscribed(h) == [] and not session(h).next_game
    h.press_label(7, 7, "Join")  # one tap, from the private chat
    assert 7 in [p.id for p in session(h).players]
    h.command(1, "/cancel")
    h.command(1, "/newgame")
    assert len(_notices(h, 7)) == 2  # the subscription has ended


def test_asking_twice_or_while_a_lobby_is_open(h):
    h.send(U.start(h.user(7)))
    h.command(7, "/nextgame")
    h.command(7, "/nextgame")
    assert "already be told" in h.io.texts(GROUP)[-1]
    h.lobby([1, 2, 3, 4, 5])
    h.command(8, "/nextgame")
    assert "A game is open right now" in h.io.texts(GROUP)[-1]


def test_someone_the_bot_cannot_message_gets_the_link(h):
    h.command(9, "/nextgame")
    assert f"https://t.me/{U.BOT_USERNAME}?start=" in h.io.texts(GROUP)[-1]
    assert f"chat#{GROUP}" not in h.repo.items  # nothing recorded


def test_a_player_of_the_running_game_is_told_when_the_next_one_opens(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Start")
    h.command(3, "/nextgame")
    h.command(1, "/cancel")
    h.command(2, "/newgame")
    assert "A new game is open" in _notices(h, 3)[-1]


def test_the_host_who_opens_it_is_not_told(h):
    h.send(U.start(h.user(1)))
    h.command(1, "/nextgame")
    h.command(1, "/newgame")
    assert len(_notices(h, 1)) == 1  # only the confirmation


def test_in_private_it_is_a_group_command(h):
    h.send(U.start(h.user(7)))
    h.command(7, "/nextgame", chat_id=7)
    assert "group" in h.io.texts(7)[-1].lower()


def test_in_french(h):
    h.langs[7] = "fr"
    h.send(U.start(h.user(7)))
    h.command(7, "/nextgame")
    assert "Je vous préviendrai ici" in h.io.texts(7)[-1]
    h.lobby([1, 2, 3, 4, 5])
    assert "Une nouvelle partie est ouverte" in _notices(h, 7)[-1]
    h.press_label(7, 7, "Rejoindre")
    assert 7 in [p.id for p in session(h).players]


def test_a_full_list_says_so(h, monkeypatch):
    monkeypatch.setattr(subscribers, "PER_SHARD", 1)
    first, second = 7, 7 + subscribers.SHARDS  # (the same item)
    for uid in (first, second):
        h.send(U.start(h.user(uid)))
        h.command(uid, "/nextgame")
    assert "The list of people waiting for the next game here is full" in h.io.texts(GROUP)[-1]
    assert subscribed(h) == [first]
