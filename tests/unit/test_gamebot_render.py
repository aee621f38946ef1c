"""Rendering: group messages carry only public information; any prompt renders from its fields."""
from __future__ import annotations

import random
from typing import TypedDict

import pytest

from engine import Event, GameConfig, Prompt, Theme, apply_action, new_game, public_view, view
from engine.event_types import Idents, Quest, Seat, Seats, forget, prompt_info, view_entry
from engine.game import actors
from engine.policy import ai_seat_move
from gamebot.botapi.callbacks import MAX_BYTES, Codec
from gamebot.compose.game import game_outs
from gamebot.core.service import Service
from gamebot.language.markup import Html
from gamebot.messages.board import board
from gamebot.messages.events import announcements, event_line, private_events
from gamebot.messages.prompts import private_prompt, prompt_mode
from gamebot.messages.role_card import role_card
from gamebot.messages.table import MAX_TEXT, Table, split
from gamebot.messages.view_lines import BOARD_LINES
from gamebot.messages.vote import proposal_line, vote_message
from gamebot.storage.session import PLAYING, Player, Session
from gamebot.storage.store import FakeRepository
from gamebot.story import end_text
from tests.builder import played_out
from tests.helpers import scrambled
from tests.unit.gamebot_fakes import RecordingIO

GROUP = -1001000000001
CODEC = Codec("123456:TOKEN")
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"]
ROLE_WORDS = ["Merlin", "Percival", "Morgana", "Mordred", "Oberon", "Assassin", "Minion", "Servant", "Spy", "Evil (", "Good ("]

CONFIGS = [
    GameConfig(players=5, roles=("merlin", "assassin")),
    GameConfig(players=7, roles=("merlin", "assassin", "percival", "morgana"), options={"lady_of_the_lake": True}),
    GameConfig(players=8, roles=("merlin", "assassin", "percival", "morgana", "oberon"), options={"targeting": True}),
    GameConfig(players=10, roles=("merlin", "assassin", "percival", "morgana", "mordred", "oberon"),
               options={"lady_of_the_lake": True}),
    GameConfig(theme=Theme.RESISTANCE, players=6, roles=(), options={"blind_spies": True}),
]


def _session(state) -> Session:
    return Session(
        chat_id=GROUP, title="Test group", game_id="abc123", status=PLAYING, state=state.to_json(),
        players=[Player(id=1000 + i, name=NAMES[i]) for i in range(state.n)], board_msg=1, vote_msg=2,
    )


def _group_outs(service: Service, session: Session, before, after, events):
    outs = game_outs(service.deps, session.model_copy(deep=True), before, after, events, ("vote", 2)).outs
    return [(o.op, o.message_id, o.text, o.keyboard) for o in outs if o.chat_id == GROUP]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.theme.value}-{c.players}")
def test_group_messages_do_not_change_when_every_secret_changes(config):
    """Scramble every role, side, knowledge, vote and card: the group must see exactly the same."""
    service = Service(FakeRepository(), RecordingIO(), CODEC, bot_username="TestBot")
    rng = random.Random(config.players)
    state, events = new_game(config, seed=config.players * 13)
    session = _session(state)
    assert _group_outs(service, session, None, state, events) == _group_outs(
        service, session, None, scrambled(state, None, rng), events
    )
    steps = 0
    while not state.over and steps < 400:
        seat = rng.choice(actors(state))
        action = ai_seat_move(state, seat, rng)
        new, events = apply_action(state, action)
        real = _group_outs(service, session, state, new, events)
        fake = _group_outs(service, session, scrambled(state, None, rng), scrambled(new, None, rng), events)
        assert real == fake
        if not new.over and not public_view(new).get("assassination"):  # the Assassin steps forward by rule
            for _, _, text, _ in real:
                assert not any(word in (text or "") for word in ROLE_WORDS if "Merlin" not in (text or "")), text
        state, steps = new, steps + 1
    assert state.over


def _table(n: int = 5, theme: str = "avalon") -> Table:
    return Table(chat_id=GROUP, game_id="abc123", title="T", theme=theme, names=NAMES[:n],
                 user_ids=list(range(1000, 1000 + n)), bot_username="TestBot")


@pytest.fixture(scope="module", autouse=True)
def _new_plugin_declared():
    """A new plug-in's prompt info and view entry, declared (engine.event_types) for these tests only."""

    @prompt_info("plot_spy_glass")
    class SpyGlassInfo(TypedDict):
        holder: Seat
        quest: Quest

    @view_entry("black_knight")
    class BlackKnightView(TypedDict):
        holder: Seat
        charges: int
        armed: bool
        asleep: bool
        gone: Seat | None
        seats: Seats
        cards: Idents
        log: list[dict[str, int]]
        nested: dict[str, int]
        empty: list[int]

    yield
    forget("plot_spy_glass")
    forget("black_knight")


def test_a_prompt_from_a_new_plugin_renders_from_its_fields():
    prompt = Prompt(kind="plot_spy_glass", seat=0, pick=2, targets=[1, 2, 3], choices=["left", "right"],
                    optional=True, info={"holder": 2, "quest": 1}).model_dump()
    text, kb = private_prompt(_table(), prompt, CODEC, serial=17, sel={"targets": [1]}, pv=None)
    labels = [b.text for row in kb for b in row]
    assert "Plot spy glass" in text and "Carol" in text  # the name and the info, seats as names
    assert any("Bob" in label and label.startswith("✅") for label in labels)
    assert any("Dave" in label and label.startswith("▫️") for label in labels)
    assert "Left" in labels and "Right" in labels
    assert any("Confirm (1/2)" in label for label in labels)
    assert any("Pass" in label for label in labels)
    assert all(len(b.data.encode()) <= MAX_BYTES for row in kb for b in row)


def test_a_single_pick_prompt_answers_with_one_press():
    prompt = Prompt(kind="lady", seat=0, pick=1, targets=[1, 2]).model_dump()
    assert prompt_mode(prompt) == "immediate"
    text, kb = private_prompt(_table(), prompt, CODEC, serial=3)
    assert [b.text for row in kb for b in row] == ["Bob", "Carol"]
    assert "Lady of the Lake" in text


def test_quest_prompt_offers_only_the_cards_the_engine_allows():
    prompt = Prompt(kind="play", seat=1, choices=["success"], info={"quest": 0}).model_dump()
    _, kb = private_prompt(_table(), prompt, CODEC, serial=9)
    assert [b.text for row in kb for b in row] == ["✅ Success"]
    _, kb = private_prompt(_table(theme="resistance"), prompt, CODEC, serial=9)
    assert [b.text for row in kb for b in row] == ["✅ Mission Success"]


def test_events_without_words_are_announced_generically_with_names_by_their_declared_types(black_knight):
    lines = announcements(_table(), [Event(type="BlackKnightRode", data={"holder": 1, "target": 3, "quest": 2})])
    assert lines == ["ℹ️ Black knight rode\n   Holder: Bob\n   Target: Dave\n   Quest: 3"]


def test_an_undeclared_event_shows_its_values_as_they_are():
    """Nothing is guessed from a field's name: only a declaration makes a number a seat or a quest."""
    lines = announcements(_table(), [Event(type="WhiteKnightRode", data={"holder": 1, "card": "fail", "hit": True})])
    assert lines == ["ℹ️ White knight rode\n   Holder: 1\n   Card: ❌ Fail\n   Hit: on"]


def test_private_events_never_reach_the_group_renderer():
    secret = Event(type="LoyaltySeen", to=(0,), data={"seat": 1, "side": "evil"})
    assert announcements(_table(), [secret]) == []
    assert private_events(_table(), [secret], 0) == ["🔍 You looked at Bob's loyalty: <b>Evil</b>."]
    assert private_events(_table(), [secret], 1) == []


def test_role_card_names_what_merlin_knows_but_not_mordred():
    config = GameConfig(players=7, roles=("merlin", "assassin", "mordred", "percival", "morgana"))
    state, _ = new_game(config, seed=5)
    merlin = state.roles.index("merlin")
    table = _table(7)
    card = role_card(table, view(state, merlin))
    assert "You are <b>Merlin</b>" in card
    for seat, role in enumerate(state.roles):
        if role in ("assassin", "morgana"):
            assert NAMES[seat] in card
        if role == "mordred":
            assert NAMES[seat] not in card


def test_board_shows_tracks_leader_and_lady_from_the_public_view():
    config = GameConfig(players=7, roles=("merlin", "assassin"), options={"lady_of_the_lake": True})
    state, _ = new_game(config, seed=2)
    pv = public_view(state)
    text = board(_table(7), pv)
    assert "4️⃣ 4*" in text and "needs two fails" in text
    assert f"Leader: {NAMES[state.leader]}" in text
    assert f"Lady of the Lake: {NAMES[pv['lady']['holder']]}" in text


def test_game_over_lists_every_role_and_the_history_with_counts_only():
    state = played_out(GameConfig(players=5), 4)
    msgs = end_text.game_over(_table(5), public_view(state))
    text = "\n".join(msgs)
    for seat in range(5):
        assert NAMES[seat] in text
    assert "Round 1" in text and "History" in text
    assert all(len(m) <= MAX_TEXT for m in msgs)


def test_long_texts_are_split_into_messages_telegram_accepts():
    parts = split(Html("\n").join(["x" * 100] * 100))
    assert len(parts) == 3 and all(len(p) <= MAX_TEXT for p in parts)


# ---------------------------------------------------------------------------------------------------
# Plug-ins on the board, in announcements, prompts and the history: sentences, names, never data
# ---------------------------------------------------------------------------------------------------

EVERY_MODULE = GameConfig(
    players=10,
    roles=("merlin", "assassin", "good_rogue", "evil_rogue", "good_lancelot", "evil_lancelot", "good_messenger",
           "good_messenger", "evil_messenger"),
    options={"lady_of_the_lake": True, "excalibur": True, "trapper": True, "plot_cards": True,
             "lancelot": "bigbox_predealt"},
)
REPR = ("None", "True", "False", "[]", "{}", "['", "{'", "_")


def _every_module_view() -> dict:
    """The public view of a 10-player game with every module, in the middle of a round."""
    state, _ = new_game(EVERY_MODULE, seed=3)
    pv = public_view(state)
    pv["lancelot"]["cards"] = ["no_change", "switch", "no_change", "no_change", "switch"]
    pv["excalibur"]["holder"] = 8
    pv["plot"].update(hands=[["opinion_maker", "opinion_maker"], [], [], [], [], [], [], [], ["strong_leader"], []],
                      drawn=["no_confidence"], deck=12)
    pv["messengers"].update(good_messages=2, evil_messages=1)
    pv["rogue"].update(watch=3, tokens=[{"round": 1, "quest": 1, "rogue_success": 1, "rogue_fail": 0}])
    pv["trapper"]["discarded"] = [{"round": 1, "quest": 1, "seat": 2}]
    pv["revealed"] = [{"seat": 5, "role": "revealer", "side": "evil"}]
    return pv


def test_the_board_has_one_short_line_per_module_with_names_not_data():
    pv = _every_module_view()
    text = board(_table(10), pv)
    lady, leader = NAMES[pv["lady"]["holder"]], NAMES[pv["leader"]]
    assert text.split("\n")[5:13] == [
        f"🌊 Lady of the Lake: {lady}",
        "⚔️ Excalibur: Ivan",
        "👁 Watch: Dave",
        "🏴 Rogue cards played: ✅ Rogue Success (Quest 2)",
        f"🃏 Plot cards: Alice holds <b>2 × Charge</b>; Ivan holds <b>Lead to Victory</b>; {leader} is dealing "
        "<b>The King Returns</b>; 12 in the deck",
        "📨 Messages: 2 Good, 1 Evil",
        "🎴 Lancelot cards: 1️⃣ No change · 2️⃣ Switch · 3️⃣ No change · 4️⃣ No change · 5️⃣ Switch",
        "🎭 Frank is the Revealer (Evil)",
    ]
    assert not any(bit in text for bit in REPR)
    assert len(text) < 900
    pv.update(stage="game_end", waiting={"kind": "assassinate", "seats": [1]})  # no more rounds: Excalibur and
    # the Plot cards no longer matter
    text = board(_table(10), pv)
    assert "Excalibur" not in text and "Plot cards" not in text and "📨 Messages: 2 Good, 1 Evil" in text


def test_a_module_with_nothing_to_show_has_no_board_line():
    state, _ = new_game(EVERY_MODULE, seed=3)
    pv = public_view(state)
    pv["plot"].update(drawn=[], deck=0)
    text = board(_table(10), pv)
    for absent in ("Excalibur", "Watch", "Rogue", "🃏", "Messages", "Trapper", "set aside"):
        assert absent not in text.replace("(Plot cards)", "")  # the Leader's turn to deal is named
    assert "🎴 Lancelot cards: 1️⃣" in text  # the cards above the quests are dealt at the start


def test_the_board_shows_variant_one_lancelot_cards_as_drawn():
    table = _table(10)
    drawn = {"variant": "bigbox_switch", "cards": [{"round": 1, "card": "switch"}, {"round": 2, "card": "no_change"}],
             "deck_left": 4}
    assert BOARD_LINES["lancelot"](table, {}, drawn) == ["🎴 Lancelot cards drawn: Switch, No change (4 left)"]
    none_yet = {"variant": "classic_switch", "cards": [], "deck_left": 5}
    assert BOARD_LINES["lancelot"](table, {}, none_yet) == ["🎴 Lancelot cards: 5 in the deck"]


def test_an_unknown_view_entry_shows_only_readable_values():
    """A future plug-in's entry, by its declared types: scalars, seats and ids as names; nested data, None,
    False, empties left out."""
    state, _ = new_game(GameConfig(players=5, roles=("merlin", "assassin")), seed=1)
    pv = public_view(state)
    pv["black_knight"] = {"holder": 2, "charges": 3, "armed": True, "asleep": False, "gone": None, "seats": [1, 4],
                          "cards": ["strong_leader"], "log": [{"round": 1}], "nested": {"a": 1}, "empty": []}
    pv["moon"] = "full_moon"
    pv["history_only"] = [{"round": 1, "seat": 2}]
    lines = board(_table(5), pv).split("\n")
    knight = next(line for line in lines if line.startswith("Black knight"))
    assert "Carol" in knight and "3" in knight and "Bob and Erin" in knight and "Lead to Victory" in knight
    for hidden in ("log", "nested", "empty", "gone", "asleep", *REPR):
        assert hidden not in knight, knight
    assert "Moon: Full moon" in lines
    assert not any(line.startswith("History only") for line in lines)


def test_plot_cards_are_announced_as_what_happened():
    t = _table(5)

    def ev(etype, **data):
        return Event(type=etype, data=data)

    assert announcements(t, [ev("LeaderChanged", leader=3, previous=1, card="strong_leader"),
                                    ev("PlotCardPlayed", card="strong_leader", seat=3, previous=1)]) == [
        "🃏 Dave plays <b>Lead to Victory</b> and becomes the Leader instead of Bob."]
    assert announcements(t, [ev("PlotCardTaken", seat=2, source=4, card="opinion_maker"),
                                    ev("PlotCardPlayed", card="take_responsibility", seat=2, target=4,
                                       taken="opinion_maker")]) == [
        "🃏 Carol plays <b>Restore Your Honor</b> and takes <b>Charge</b> from Erin."]
    assert announcements(t, [ev("PlotCardPassed", seat=1, card="no_confidence")]) == []
    assert announcements(t, [ev("PlotCardPlayed", card="establish_confidence", seat=1, target=2, leader=0)]) == [
        "🃏 Bob received <b>Show Your Strength</b>: the Leader Alice shows their loyalty to Carol."]
    assert announcements(t, [ev("PlotCardDiscarded", seat=1, card="take_responsibility", reason="no_effect")]) == [
        "🃏 <b>Restore Your Honor</b> has no effect now and is discarded."]
    resistance = _table(5, theme="resistance")
    assert announcements(resistance, [ev("PlotCardPlayed", card="no_confidence", seat=1, team=[0, 1])]) == [
        "🃏 Bob plays <b>No Confidence</b>: the team is rejected after all."]
    # a sentence with a blank the event cannot fill is not used: the plain one is
    assert event_line(t, "PlotCardPlayed", {"card": "strong_leader", "seat": 3}) == (
        "🃏 Dave plays <b>Lead to Victory</b>.")


def test_the_start_of_the_game_is_announced_first():
    lines = announcements(_table(5), [Event(type="LadyGiven", data={"seat": 1}),
                                             Event(type="GameStarted", data={"players": 5})])
    assert lines[0].startswith("🎬") and lines[1] == "🌊 Bob receives the Lady of the Lake."


def test_the_assassins_announced_target_and_the_allegiance_cards_are_named():
    t = _table(5)
    assert event_line(t, "AssassinTargetAnnounced", {"assassin": 1, "target": "messengers"}) == (
        "🗡 Bob will name: <b>the Good Messengers</b>.")
    assert event_line(t, "AllegianceCardDrawn", {"round": 2, "card": "switch", "left": 3}) == (
        "⚜️ Allegiance card: <b>Switch</b>. The two Lancelots change sides!")
    assert event_line(t, "AllegianceCardsDealt", {"cards": ["no_change", "switch"]}) == (
        "⚜️ Lancelot's Allegiance cards lie face up above the Quests: 1️⃣ No change · 2️⃣ Switch.")


def test_open_votes_are_shown_in_the_vote_message_not_announced():
    state, _ = new_game(GameConfig(players=5, options={"plot_cards": True}), seed=1)
    pv = public_view(state)
    pv.update(proposals=[{"round": 1, "quest": 0, "leader": 0, "team": [0, 1], "votes": "", "approved": None}],
              voted=[2])
    pv["plot"]["open_votes"] = {"2": "reject"}
    text, _ = vote_message(_table(5), pv, CODEC, serial=4)
    lines = text.split("\n")
    assert lines[1] == "Leader Alice proposes: <b>Alice and Bob</b>"  # the line players read the team from
    assert lines[2] == "📣 Carol votes <b>Reject</b> openly."
    assert announcements(_table(5), [Event(type="VoteShown", data={"seat": 2, "vote": "reject"})]) == []
    assert proposal_line(_table(5), pv) == "👑 Alice proposes Alice and Bob for Quest 1."


def test_the_history_tells_what_the_modules_did_each_round():
    pv = {"players": 5, "winner": "evil", "win_reason": "three_failures", "winners": [1, 3],
          "roles": ["merlin", "assassin", "servant", "minion", "servant"],
          "sides": ["good", "evil", "good", "evil", "good"],
          "proposals": [{"round": 1, "quest": 0, "leader": 0, "team": [0, 1], "votes": "AARRA", "approved": True}],
          "quests": [{"round": 1, "quest": 0, "team": [0, 1], "cards": {"fail": 1, "success": 1}, "success": False}],
          "excalibur": {"holder": None, "uses": [{"round": 1, "quest": 0, "holder": 0, "target": 1}]},
          "trapper": {"discarded": [{"round": 1, "quest": 0, "seat": 4}]},
          "rogue": {"watches": [{"round": 1, "quest": 0, "seat": 1}], "tokens": []},
          "lancelot": {"variant": "bigbox_switch", "cards": [{"round": 1, "card": "switch"}], "deck_left": 5},
          "plot": {"played": [{"round": 1, "card": "keeping_close_eye", "seat": 2, "target": 1},
                              {"round": 2, "card": "open_up", "seat": 3, "target": 0}]}}
    _, history = end_text.game_over(_table(5), pv)
    assert history.split("\n")[1:] == [
        "<b>Round 1</b> · Quest 1",
        "  ⚜️ Allegiance card: Switch",
        "  🃏 Carol plays <b>Ambush</b> and looks at Bob's card.",
        "  Team 1 · Alice: Alice and Bob → ✅ Alice, Bob and Erin | ❌ Carol and Dave → approved",
        "  👁 Watch token: Bob",
        "  ⚔️ Alice used Excalibur on Bob's card",
        "  🪤 Erin's card was set aside",
        "  ⚔️ Alice and Bob: failed (1 × ❌ Fail, 1 × ✅ Success)",
    ]


def test_prompts_name_players_and_cards_and_say_how_many_to_choose():
    t = _table(5)
    take = Prompt(kind="plot_take_responsibility", seat=0, pick=1, targets=[1, 3], choices=["opinion_maker", "keeping_close_eye"],
                  info={"card": "take_responsibility", "kind": "immediate",
                        "hands": {"1": ["opinion_maker"], "3": ["keeping_close_eye"]}}).model_dump()
    text, _ = private_prompt(t, take, CODEC, serial=5)
    assert "At the table: Bob holds <b>Charge</b>; Dave holds <b>Ambush</b>." in text
    assert "choose the player and the card" in text and "Choose a player." not in text  # said once
    show = Prompt(kind="plot_establish_confidence", seat=0, pick=1, targets=[1, 2],
                  info={"card": "establish_confidence", "kind": "immediate", "receiver": 2}).model_dump()
    text, _ = private_prompt(t, show, CODEC, serial=5)
    assert text.startswith("🃏 Carol received <b>Show Your Strength</b>: as the Leader, choose a player")
    both = Prompt(kind="assassinate", seat=1, pick=2, targets=[0, 2, 3], info={"target": "messengers"}).model_dump()
    text, _ = private_prompt(t, both, CODEC, serial=5)
    assert "the two players you believe are the Good Messengers" in text and "Choose 2 players." not in text


def test_the_role_card_tells_a_messenger_their_rank_and_messages_left():
    state, _ = new_game(GameConfig(players=7, roles=("merlin", "assassin", "good_messenger", "good_messenger",
                                                     "evil_messenger"), options={"senior_junior_messengers": True}),
                        seed=2)
    seat = state.roles.index("good_messenger")
    card = role_card(_table(7), view(state, seat))
    assert "📜 Good Messages you may still play: 2" in card
    assert "📜 You are the <b>Senior</b> Messenger." in card or "📜 You are the <b>Junior</b> Messenger." in card


def test_a_player_out_of_time_is_told_what_was_played_for_them():
    t = _table(5)
    assert private_events(t, [Event(type="DefaultApplied", to=(1,), data={
        "kind": "play", "choice": "success", "targets": [], "quest": 0})], 1) == [
        "⏰ Your time ran out, so I played <b>✅ Success</b> for you."]
    assert private_events(t, [Event(type="DefaultApplied", to=(1,), data={
        "kind": "vote", "choice": "approve", "targets": [], "quest": None})], 1) == [
        "⏰ Your time ran out: your vote counts as <b>✅ Approve</b>."]
    assert private_events(t, [Event(type="DefaultApplied", to=(1,), data={
        "kind": "plot_no_confidence", "choice": "pass", "targets": [], "quest": None})], 1) == [
        "⏰ Your time ran out, so I applied the default for you."]


def test_a_round_is_announced_before_what_happens_as_it_begins():
    events = [Event(type="QuestCompleted", data={"quest": 0, "success": True, "cards": {"success": 2}}),
              Event(type="AllegianceCardDrawn", data={"round": 2, "card": "switch", "left": 4}),
              Event(type="RoundStarted", data={"round": 2, "leader": 1}),
              Event(type="PlotCardsDrawn", data={"leader": 1, "cards": ["open_up"], "left": 6})]
    lines = announcements(_table(5), events)
    assert [line.split(" ")[0] for line in lines] == ["✅", "🔔", "⚜️", "🃏"]
