"""Statistics and ratings (counted by the end's ``stats`` effect, after its commit), /stats, the game
picture and /history, through the update service with the in-memory repository and the recording Bot
API double."""
from __future__ import annotations

import html
import random

import pytest

from engine import GameConfig, GameState
from gamebot.handlers.statistics import stats_effect
from gamebot.scores import ratings, stats
from gamebot.storage.session import Session, archive_key, chat_key
from gamebot.storage.store import FakeRepository, VersionConflict
from tests.builder import played_out
from tests.e2e.driver import Driver, Policy
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen, session

PNG = b"\x89PNG\r\n\x1a\n"


class RecordingRepository(FakeRepository):
    """Remembers the keys of every transaction."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.transactions: list[list[str]] = []

    def transact(self, writes, deletes=None):
        out = super().transact(writes, deletes)
        self.transactions.append([w.item.key for w in writes])
        return out


@pytest.fixture
def h():
    harness = Harness()
    harness.repo = RecordingRepository()
    harness.service.repo = harness.repo
    yield harness
    harness.close()




def play(h: Harness, players: list[int], seed: int = 4, start: str = "Start") -> GameState:
    h.lobby(players)
    h.press_label(players[0], GROUP, start)
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(seed)))
    for _ in range(2000):  # (not driver.over(): the group may show an earlier game's end)
        if session(h).status == "ended" or not (driver.step() or h.idle()):
            break
    while h.idle():  # the end's messages may wait for the group's budget
        pass
    s = session(h)
    assert s.status == "ended"
    return GameState.from_json(h.repo.items[archive_key(GROUP, s.last["game_id"])].body["state"])


def body(h: Harness, key: str) -> dict:
    return h.repo.items[key].body


def test_the_game_end_counts_the_game_for_the_group_and_each_player_after_its_commit(h):
    players = [1, 2, 3, 4, 5, 6, 7]
    state = play(h, players)
    winners = set(state.winners)
    chat = body(h, stats.chat_stats_key(GROUP))
    assert chat["games"] == 1 and chat["themes"]["avalon"]["games"] == 1
    assert chat["themes"]["avalon"][state.winner.value] == 1
    assert chat["reasons"] == {state.win_reason: 1}
    assert sum(r["games"] for r in chat["roles"].values()) == 7
    assert sum(r["wins"] for r in chat["roles"].values()) == len(winners)
    for seat, uid in enumerate(players):
        mine = body(h, stats.user_stats_key(uid))
        won = int(seat in winners)
        assert (mine["games"], mine["wins"]) == (1, won)
        assert mine["roles"] == {state.roles[seat]: {"games": 1, "wins": won}}
        assert mine["sides"] == {state.sides[seat].value: {"games": 1, "wins": won}}
        row = chat["players"][str(uid)]
        assert row["games"] == 1 and row["rated"] == 1
        assert (row["mu"] > 25) == bool(won)  # the winners' ratings rose, the others' fell
        assert mine["ratings"] == {str(GROUP): {"title": "Avalon Test Group", "mu": row["mu"],
                                                "sigma": row["sigma"], "rated": 1, "games": 1, "wins": won}}
    assassin = [int(e.split("|")[0]) for e in state.log if e.split("|")[1] == "assassinate"]
    if assassin:
        hit = int(state.win_reason == "merlin_assassinated")
        assert chat["assassinations"] == {"attempts": 1, "hits": hit} and chat["targets"]["merlin"] == {
            "attempts": 1, "hits": hit}
        assert body(h, stats.user_stats_key(players[assassin[0]]))["assassinations"] == {"attempts": 1, "hits": hit}
    # the end's transaction holds the chat item and the archive only; the statistics items are written in
    # a transaction of their own, after it (the outbox's "stats" effect, delivered like a message)
    end = next(i for i, t in enumerate(h.repo.transactions) if any(k.startswith("game#") for k in t))
    assert set(h.repo.transactions[end]) == {chat_key(GROUP), archive_key(GROUP, session(h).last["game_id"])}
    [counted] = [t for t in h.repo.transactions if any(k.startswith("stats#") for k in t)]
    assert set(counted) == {stats.chat_stats_key(GROUP), *(stats.user_stats_key(u) for u in players)}
    assert h.repo.transactions.index(counted) > end
    assert not session(h).outbox.effects  # delivered and acknowledged


def test_a_second_game_adds_up_and_a_redelivered_final_update_counts_once(h):
    players = [1, 2, 3, 4, 5]
    play(h, players, seed=1)
    final = h.sent[-1]
    before = {k: dict(v.body) for k, v in h.repo.items.items() if k.startswith("stats#")}
    assert h.send(final) == 200  # Telegram redelivers the update that ended the game
    assert {k: v.body for k, v in h.repo.items.items() if k.startswith("stats#")} == before
    play(h, players, seed=2)
    assert body(h, stats.chat_stats_key(GROUP))["games"] == 2
    assert all(body(h, stats.user_stats_key(u))["games"] == 2 for u in players)


def test_cancelled_games_are_not_counted(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Start")
    h.command(1, "/cancel")
    assert session(h).status == "cancelled"
    assert not [k for k in h.repo.items if k.startswith("stats#")]
    h.command(1, "/stats")
    text = h.io.last(GROUP).text
    assert "No finished game in this group yet" in text and "cancelled games are not counted" in text


def test_statistics_items_are_read_then_written_with_their_versions(h, monkeypatch):
    """Another group's game ends for one of our players between our read and our write: our transaction
    fails on that item's version and is re-run from fresh reads, so both games count."""
    h.repo.put(stats.Item(stats.user_stats_key(3), {"games": 5, "wins": 1, "recent": ["other"]}), None)
    original = h.repo.get_many
    raced = []

    def get_many(keys):
        found = original(keys)
        if stats.user_stats_key(3) in keys and not raced:
            raced.append(True)
            item = found[stats.user_stats_key(3)]
            h.repo.put(stats.Item(item.key, dict(item.body, games=6, recent=["other", "another"])), item.version)
        return found

    monkeypatch.setattr(h.repo, "get_many", get_many)
    play(h, [1, 2, 3, 4, 5])
    assert raced
    assert body(h, stats.user_stats_key(3))["games"] == 7
    assert body(h, stats.chat_stats_key(GROUP))["games"] == 1


def finished_state(seed: int = 3) -> GameState:
    return played_out(GameConfig(players=5, roles=("merlin", "assassin")), seed)


def counted(s: Session, state: GameState) -> dict[str, dict]:
    """The statistics items a ``stats`` effect of ``s``'s end writes into an empty table."""
    import engine

    effect = stats_effect(s, state, engine.public_view(state))
    return {w.item.key: w.item.body for w in stats.writes(stats.Outcome.of(effect.stats), {})}


def test_idle_timeouts_are_added_when_the_session_keeps_them():
    """``Session.idle`` (timeouts per user id, added by the phase timers) is read defensively."""

    class TimedSession(Session):
        idle: dict[str, int] = {}

    state = finished_state()
    players = [{"id": 10 + i, "name": f"P{i}"} for i in range(5)]
    plain = Session(chat_id=GROUP, game_id="g1", players=players, status="ended")
    timed = TimedSession(chat_id=GROUP, game_id="g2", players=players, idle={"10": 2, "13": 1, "99": 0},
                         status="ended")
    writes = counted(timed, state)
    assert writes[stats.chat_stats_key(GROUP)]["idle"] == 3
    assert writes[stats.user_stats_key(10)]["idle"] == 2 and writes[stats.user_stats_key(11)]["idle"] == 0
    assert counted(plain, state)[stats.chat_stats_key(GROUP)]["idle"] == 0


def test_games_with_fewer_than_five_humans_or_cancelled_do_not_count():
    import engine

    state = finished_state()
    pv = engine.public_view(state)
    humans = [{"id": 10 + i, "name": f"P{i}"} for i in range(5)]
    with_a_bot = [dict(p, bot=True) if i == 2 else p for i, p in enumerate(humans)]
    assert stats_effect(Session(chat_id=GROUP, game_id="g", players=humans, status="ended"), state, pv) is not None
    assert stats_effect(Session(chat_id=GROUP, game_id="g", players=with_a_bot, status="ended"), state, pv) is None
    assert stats_effect(Session(chat_id=GROUP, game_id="g", players=humans, status="cancelled"), state, pv) is None


def test_a_game_with_a_bot_account_at_the_table_is_not_counted(h):
    """A player whose Telegram account is a bot is no human: five players, four humans, no statistics."""
    plain = h.user
    h.user = lambda uid: dict(plain(uid), is_bot=uid == 3)
    play(h, [1, 2, 3, 4, 5])
    assert [p.bot for p in session(h).players] == [None, None, True, None, None]
    assert not [k for k in h.repo.items if k.startswith("stats#")]


def test_stats_in_the_group_and_in_private(h, monkeypatch):
    monkeypatch.setattr(ratings, "RANKED_AFTER", 2)
    players = [1, 2, 3, 4, 5, 6]
    play(h, players, seed=7)
    play(h, players, seed=8)
    h.command(2, "/stats")
    text = html.unescape(h.io.last(GROUP).text)
    assert text.startswith("📊 <b>Statistics of")
    assert "<b>Avalon</b> — games: 2 · Good won: " in text
    assert "🏆 <b>Leaderboard</b> (rating · games)\n1. " in text and " · 2 games\n2. " in text
    rows = body(h, stats.chat_stats_key(GROUP))["players"]
    best = max(rows.values(), key=ratings.ordinal)
    assert f"1. {best['name']} — {ratings.shown(best)} · 2 games" in text
    assert "<b>Win rate by side</b>\n😇 Good / Resistance: " in text and "😈 How Evil won: three failed quests: " in text
    assert "<b>Win rate by character</b>" in text and "• Merlin: " in text
    assert "cancelled games are not counted" in text
    h.command(2, "/stats", chat_id=2)
    mine = html.unescape(h.io.last(2).text)
    assert mine.startswith("📊 <b>Your statistics, Carol</b>") and "Games: 2 · wins:" in mine
    assert "<b>Your rating</b> (games rated)\n⭐ Avalon Test Group: " in mine and "<b>Win rate by character</b>" in mine
    h.command(9, "/stats", chat_id=9)
    assert "You have not finished a game yet" in h.io.last(9).text
    h.command(1, "/language fr")
    h.command(2, "/stats")
    fr = html.unescape(h.io.last(GROUP).text)
    assert fr.startswith("📊 <b>Statistiques · ") and "🏆 <b>Classement</b> (cote · parties)\n1. " in fr
    assert "😈 Victoires du Mal : trois Quêtes échouées : " in fr


def test_stats_cost_one_read(h):
    play(h, [1, 2, 3, 4, 5])
    for chat in (GROUP, 1):
        before = dict(h.repo.calls)
        h.command(1, "/stats", chat_id=chat if chat > 0 else None)
        # one read; one write: the claim of the update id, so that a redelivery is not answered twice
        assert h.repo.calls["read"] - before["read"] == 1 and h.repo.calls["write"] - before["write"] == 1


# ---------------------------------------------------------------------------------------------------
# The picture
# ---------------------------------------------------------------------------------------------------


def test_the_end_of_a_game_sends_its_picture_after_the_text(h):
    play(h, [1, 2, 3, 4, 5])
    chat = h.io.chat(GROUP)
    [photo] = h.io.photos(GROUP)
    assert photo.photo.startswith(PNG)
    assert photo.text.startswith("🖼 <b>Avalon</b> · 5 players · ")
    end = [i for i, m in enumerate(chat) if "Game over" in m.text or "<b>History</b>" in m.text]
    assert end and chat.index(photo) > max(end)  # the text history comes first


def test_without_a_picture_the_end_messages_still_arrive(h, monkeypatch):
    import gamebot.story.picture

    def broken(*args, **kwargs):
        raise RuntimeError("no pictures today")

    monkeypatch.setattr(gamebot.story.picture, "render_png", broken)
    play(h, [1, 2, 3, 4, 5])
    assert h.io.photos(GROUP) == []
    assert any("Game over" in m.text for m in h.io.chat(GROUP))
    assert any("<b>History</b>" in m.text for m in h.io.chat(GROUP))


def test_a_refused_photo_loses_nothing_else(h):
    h.io.photo_error = "bad_request"
    play(h, [1, 2, 3, 4, 5])
    assert session(h).status == "ended"
    assert any("<b>History</b>" in m.text for m in h.io.chat(GROUP))
    assert h.io.photos(GROUP) == []


def test_history_sends_the_last_games_picture_again_with_one_read(h):
    h.command(1, "/history")
    assert "No finished game here yet" in h.io.last(GROUP).text
    play(h, [1, 2, 3, 4, 5])
    first = h.io.photos(GROUP)[0]
    before = dict(h.repo.calls)
    h.command(3, "/history")
    assert h.repo.calls["read"] - before["read"] == 1
    again = h.io.photos(GROUP)[-1]
    assert again.message_id != first.message_id and again.photo == first.photo and again.text == first.text
    h.command(3, "/newgame")  # a new lobby keeps the summary of the last game
    h.command(4, "/history")
    assert h.io.photos(GROUP)[-1].photo == first.photo
    # in private: the last game of the player's group, sent to them
    h.command(2, "/history", chat_id=2)
    assert h.io.photos(2)[-1].photo == first.photo
    h.command(9, "/history", chat_id=9)
    assert "You have not played a finished game yet" in h.io.last(9).text


def test_history_in_french_and_after_a_cancelled_game(h):
    h.command(1, "/language fr")
    h.lobby([1, 2, 3, 4, 5], join="Rejoindre")
    h.press_label(1, GROUP, "Commencer")
    h.command(1, "/cancel")
    h.command(1, "/history")
    photo = h.io.photos(GROUP)[-1]
    assert photo.text == "🖼 <b>Avalon</b> · 5 joueurs · annulée"


def test_history_falls_back_to_the_text_history(h, monkeypatch):
    play(h, [1, 2, 3, 4, 5])
    import gamebot.story.picture

    monkeypatch.setattr(gamebot.story.picture, "render_png", lambda *a, **k: (_ for _ in ()).throw(OSError("x")))
    photos = len(h.io.photos(GROUP))
    h.command(1, "/history")
    assert len(h.io.photos(GROUP)) == photos
    assert "<b>History</b>" in h.io.last(GROUP).text


def test_the_picture_shows_no_more_than_the_public_summary(h, monkeypatch):
    """What is drawn comes from Session.last only: counts per quest, never who played which card."""
    import gamebot.story.picture

    seen = []
    real = gamebot.story.picture.render_png
    monkeypatch.setattr(gamebot.story.picture, "render_png", lambda last, lang, *a: seen.append(last) or real(last, lang))
    play(h, [1, 2, 3, 4, 5])
    [last] = seen
    assert last == session(h).last
    for quest in last["view"]["quests"]:
        assert set(quest) == {"round", "quest", "leader", "team", "cards", "fails", "fails_needed", "success"}
        assert all(isinstance(n, int) for n in quest["cards"].values())


def test_a_transaction_conflict_at_the_end_is_retried_without_double_counting(h, monkeypatch):
    original = h.repo.transact
    failed = []

    def transact(writes, deletes=None):
        if any(w.item.key.startswith("stats#") for w in writes) and not failed:
            failed.append(True)
            raise VersionConflict("stats")
        return original(writes, deletes)

    monkeypatch.setattr(h.repo, "transact", transact)
    play(h, [1, 2, 3, 4, 5])
    assert failed and body(h, stats.chat_stats_key(GROUP))["games"] == 1
    assert len(h.io.photos(GROUP)) == 1


def test_statistics_that_could_not_be_written_are_counted_later_by_the_alarm_even_after_a_new_lobby(h):
    """The store fails while the end is counted: the ``stats`` effect stays in the outbox and is tried
    again when the chat's alarm wakes it, also after someone opened the next lobby; counted once."""
    real = h.service.courier.tally
    failures = []

    def tally(effect):
        if len(failures) < 2:
            failures.append(effect.stats["game_id"])
            raise RuntimeError("DynamoDB unavailable")
        real(effect)

    h.service.courier.tally = tally
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Start")
    driver = Driver(HarnessScreen(h), GROUP, [1, 2, 3, 4, 5], Policy(rng=random.Random(3)))
    while session(h).status != "ended":
        assert driver.step() or h.idle()  # (at one action a second the group's budget makes the table wait)
    assert failures and not [k for k in h.repo.items if k.startswith("stats#")]
    [waiting] = [e for e in session(h).outbox.effects if e.op == "stats"]
    assert waiting.not_before is not None and waiting.attempts == 1
    left = [e.seq for e in session(h).outbox.effects]
    h.command(2, "/newgame")  # the next lobby keeps the game to count (and whatever else still waits)
    kept = session(h).outbox.effects
    assert session(h).status == "lobby" and [e.op for e in kept].count("stats") == 1
    assert {e.seq for e in kept} >= set(left)
    while h.idle():
        pass
    assert len(failures) == 2 and body(h, stats.chat_stats_key(GROUP))["games"] == 1
    assert not session(h).outbox.effects
