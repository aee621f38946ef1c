"""Wording a player notices, in English and French: plurals from the catalog, articles and no repeated
side, reminders and prompts that say only what is true in the game being played."""
from __future__ import annotations

import re

import pytest

from engine import Action, GameConfig, Prompt, apply_action, new_game, public_view, view
from engine.game import actors
from engine.policy import ai_seat_move
from gamebot.botapi.callbacks import Codec
from gamebot.core.service import Reply, Service
from gamebot.handlers.play import apply_move
from gamebot.language import texts
from gamebot.messages.board import board
from gamebot.messages.events import event_line
from gamebot.messages.lobby import rules_text
from gamebot.messages.prompts import private_prompt
from gamebot.messages.role_card import knowledge_lines, role_card
from gamebot.messages.table import Table
from gamebot.messages.view_lines import plugin_board_lines
from gamebot.messages.vote import vote_message
from gamebot.storage.session import PLAYING, Player, Session
from gamebot.storage.store import FakeRepository
from gamebot.story import end_text
from tests.builder import make_state
from tests.helpers import run_quest
from tests.unit.bigbox_helpers import play_cards, to_cards
from tests.unit.gamebot_fakes import GROUP, Harness, RecordingIO
from tests.unit.plot_helpers import give, propose, ready, seat_of

CODEC = Codec("123456:TOKEN")
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy"]


def table(lang: str = "en", theme: str = "avalon", n: int = 7) -> Table:
    return Table(chat_id=GROUP, game_id="g", title="T", lang=lang, theme=theme, names=NAMES[:n],
                 user_ids=list(range(1000, 1000 + n)), bot_username="TestBot")


# --- plurals come from the catalog ------------------------------------------------------------------


def test_plurals_of_servants_and_minions_come_from_the_catalog():
    assert "Plain Loyal Servants of Arthur and Minions of Mordred fill" in texts.t("settings.page.roles", "en", "avalon")
    assert "Plain Resistance Operatives and Spies fill" in texts.t("settings.page.roles", "en", "resistance")
    assert "occupées par les Résistants et les Espions" in texts.t("settings.page.roles", "fr", "resistance")
    for lang in texts.languages():  # no plural is made by gluing an "s" to a theme word
        for key, entry in texts.catalog(lang).messages.items():
            for template in entry.values() if isinstance(entry, dict) else [entry]:
                assert not re.search(r"\}s\b", template), (lang, key, template)


# --- articles, and a side said once ------------------------------------------------------------------


def _card(config: GameConfig, role: str, lang: str = "en", seed: int = 3) -> str:
    state, _ = new_game(config, seed=seed)
    seat = state.roles.index(role)
    return role_card(table(lang, config.theme.value, config.players), view(state, seat))


@pytest.mark.parametrize("lang,spy,servant", [("en", "You are <b>a Spy</b>.", "You are <b>a Resistance Operative</b>."),
                                              ("fr", "Votre personnage est <b>un Espion</b>.", "Votre personnage est <b>un Résistant</b>.")])
def test_the_role_card_gives_the_article_and_does_not_repeat_the_side(lang, spy, servant):
    config = GameConfig(theme="resistance", players=5, roles=())
    assert spy in _card(config, "minion", lang) and servant in _card(config, "servant", lang)
    avalon = GameConfig(players=7, roles=("merlin", "assassin", "good_lancelot", "evil_lancelot"))
    card = _card(avalon, "evil_lancelot", lang)
    assert ("You are <b>Lancelot (Evil)</b>." if lang == "en" else "Votre personnage est <b>Lancelot du Mal</b>.") in card
    merlin = _card(avalon, "merlin", lang)  # a name that does not say the side: the side follows
    assert ("You are <b>Merlin</b> — Good (Loyal Servants of Arthur)." if lang == "en"
            else "Votre personnage est <b>Merlin</b> — le Bien (Fidèles Vassaux d'Arthur).") in merlin


def test_end_of_game_role_lines_do_not_repeat_the_side():
    pv = {"players": 4, "winner": "evil", "roles": ["minion", "servant", "evil_lancelot", "good_lancelot"],
          "sides": ["evil", "good", "good", "evil"], "proposals": [], "quests": []}
    head = end_text.game_over(table("en", "resistance", 4), {**pv, "roles": ["minion", "servant", "minion", "servant"],
                                                           "sides": ["evil", "good", "evil", "good"]})[0]
    assert "😈 Alice: <b>Spy</b>\n" in head and "(Spy)" not in head and "(Resistance)" not in head
    head = end_text.game_over(table("en", "avalon", 4), pv)[0]
    assert "(Evil) (Evil)" not in head
    assert "😇 Carol: <b>Lancelot (Evil)</b> (now Good)" in head and "😈 Dave: <b>Lancelot (Good)</b> (now Evil)" in head
    head = end_text.game_over(table("fr", "resistance", 4), {**pv, "roles": ["minion", "servant", "minion", "servant"],
                                                           "sides": ["evil", "good", "evil", "good"]})[0]
    assert "😈 Alice, rôle : <b>Espion</b>\n" in head and "(Espion)" not in head
    head = end_text.game_over(table("fr", "avalon", 4), pv)[0]
    assert "😇 Carol, rôle : <b>Lancelot du Mal</b> (passé au Bien)" in head and "(Mal) (Mal)" not in head


def test_revealed_characters_and_the_rules_say_the_side_once():
    pv = {"revealed": [{"seat": 1, "role": "revealer", "side": "evil"},
                       {"seat": 2, "role": "untrustworthy_servant", "side": "evil"}]}
    assert plugin_board_lines(table(), pv) == [
        "🎭 Bob is the Revealer (Evil)", "🎭 Carol is the Untrustworthy Servant (now Evil)"]
    assert plugin_board_lines(table("fr"), pv) == [
        "🎭 Bob a pour rôle le Révélateur (Mal)", "🎭 Carol a pour rôle le Vassal Peu Fiable (passé au Mal)"]
    rules = rules_text(table("en", "resistance"), ["servant", "minion"], {})
    assert "• <b>Spy</b>: " in rules and "(Spy)" not in rules and "(Resistance)" not in rules
    rules = rules_text(table("fr", "avalon"), ["evil_lancelot", "merlin"], {})
    assert "• <b>Lancelot du Mal</b> : " in rules and "• <b>Merlin</b> (Bien) : " in rules


# --- reminders that depend on the options ------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_blind_spies_role_cards_say_only_what_is_true(lang):
    blind = _card(GameConfig(theme="resistance", players=5, roles=(), options={"blind_spies": True}), "minion", lang)
    seeing = _card(GameConfig(theme="resistance", players=5, roles=()), "minion", lang)
    know = "You know the other Spies" if lang == "en" else "Vous connaissez les autres Espions"
    assert know not in blind and ("do not know who the other Spies are" if lang == "en" else "ne savez pas") in blind
    assert know in seeing
    for card in (blind, seeing):  # no "unless Blind Spies is on": the card knows whether it is
        assert "unless" not in card and "sauf avec" not in card


@pytest.mark.parametrize("lang,option_word", [("en", "Allegiance cards"), ("fr", "cartes Allégeance")])
def test_lancelot_help_mentions_allegiance_cards_only_when_they_are_in_play(lang, option_word):
    roles = ("merlin", "assassin", "good_lancelot", "evil_lancelot")
    base = GameConfig(players=7, roles=roles)
    variant = GameConfig(players=7, roles=roles, options={"lancelot": "bigbox_switch"})
    for role in ("good_lancelot", "evil_lancelot"):
        assert option_word not in _card(base, role, lang) and "option" not in _card(base, role, lang)
        assert option_word in _card(variant, role, lang)
    assert option_word not in rules_text(table(lang), list(roles), {})
    assert option_word in rules_text(table(lang), list(roles), {"lancelot": "bigbox_switch"})


# --- the assassination is announced once --------------------------------------------------------------


def _assassination_events(roles: list[str]) -> list:
    state = make_state(roles, leader=2)
    for team in ([0, 1], [0, 1, 2]):
        state = play_cards(to_cards(state, team))
    state = to_cards(state, [0, 1, 3])
    events = []
    for seat in list(state.team):
        state, ev = apply_action(state, Action(seat=seat, kind="play", choice="success"))
        events += ev
    return [e for e in events if e.type == "AssassinationStarted"]


def test_with_messengers_the_assassination_start_names_the_choice_once():
    seven = ["good_messenger", "good_messenger", "merlin", "servant", "evil_messenger", "assassin", "minion"]
    [started] = _assassination_events(seven)
    assert started.data["choices"] == ["merlin", "messengers"]
    en = event_line(table(), started.type, dict(started.data))
    assert "must now name Merlin" not in en and "Merlin or the Good Messengers" in en
    fr = event_line(table("fr"), started.type, dict(started.data))
    assert "désigner Merlin" not in fr and "Merlin ou les Messagers du Bien" in fr
    no_merlin = ["good_messenger", "good_messenger", "servant", "servant", "evil_messenger", "assassin", "minion"]
    [started] = _assassination_events(no_merlin)
    assert "both Good Messengers" in event_line(table(), started.type, dict(started.data))
    assert "les deux Messagers du Bien" in event_line(table("fr"), started.type, dict(started.data))
    merlin = event_line(table(), "AssassinationStarted", {"assassin": 5, "choices": ["merlin"]})
    assert merlin.endswith("Frank must now name Merlin.")


# --- how something was learned ------------------------------------------------------------------------


def test_knowledge_says_how_you_learned_it_not_who_is_the_cleric():
    know = [{"seat": 5, "label": "evil", "source": "cleric"}, {"seat": 1, "label": "fail", "source": "trapper", "quest": 1},
            {"seat": 2, "label": "good", "source": "lady"}, {"seat": 3, "label": "success", "source": "keeping_close_eye",
                                                              "quest": 0}]
    assert knowledge_lines(table(), know) == [
        "• Frank: Evil (you saw as the Cleric)", "• Bob: played ❌ Fail (you set it aside, Quest 2)",
        "• Carol: Good (you saw with the Lady of the Lake)", "• Dave: played ✅ Success (you saw with Ambush, Quest 1)"]
    assert knowledge_lines(table("fr"), know)[:2] == [
        "• Frank : Mal (vu en tant que Clerc)", "• Bob : a joué ❌ Échec (carte que vous avez mise de côté, Quête 2)"]


# --- prompts ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_lady_and_assassination_prompts_ask_once(lang):
    ask = "Choose a player." if lang == "en" else "Choisissez un joueur."
    for prompt in (Prompt(kind="lady", seat=0, pick=1, targets=[1, 2]),
                   Prompt(kind="assassinate", seat=0, pick=1, targets=[1, 2], info={"target": "merlin"}),
                   Prompt(kind="assassinate", seat=0, pick=2, targets=[1, 2, 3], info={"target": "messengers"})):
        text, _ = private_prompt(table(lang), prompt.model_dump(), CODEC, serial=1)
        assert ask not in text and "2" not in text.split("\n", 1)[-1], text
        assert len(text.split("\n")) == 1, text


def _play_text(pv: dict, seat: int = 0, lang: str = "en") -> str:
    prompt = Prompt(kind="play", seat=seat, choices=["success", "fail"], info={"quest": 1}).model_dump()
    return private_prompt(table(lang), prompt, CODEC, serial=1, pv=pv)[0]


def test_the_quest_prompt_says_who_may_see_a_card_in_this_game():
    base = {"leader": 3, "team": [0, 1, 2], "options": {}, "quest": 1}
    assert _play_text(base).endswith("choose your card.\nNobody will see who played what.")
    assert _play_text(base, lang="fr").endswith("Personne ne saura qui a joué quoi.")
    trapper = _play_text({**base, "options": {"trapper": True}})
    assert "Nobody will see" not in trapper and "Dave will then set one played card aside and see it" in trapper
    assert "You, the Leader, will then set one played card aside" in _play_text({**base, "options": {"trapper": True}}, 3)
    excalibur = {**base, "options": {"excalibur": True}, "excalibur": {"holder": 1, "uses": []}}
    text = _play_text(excalibur)
    assert "Nobody will see" not in text and "Bob holds Excalibur" in text and "card originally played" in text
    assert "You hold Excalibur" in _play_text(excalibur, seat=1)
    assert "Personne ne saura" not in _play_text(excalibur, lang="fr")
    plot = {**base, "options": {"plot_cards": True},
            "plot": {"hands": [[], [], [], [], ["keeping_close_eye"], [], []], "face_up": [2]}}
    text = _play_text(plot)
    assert "Nobody will see" not in text and "Ambush lets Erin look at one played card" in text
    assert "Played face up (everyone sees the card): Carol." in text
    assert "You play face up: everyone will see your card." in _play_text(plot, seat=2)


@pytest.mark.parametrize("lang,says", [("en", "you will see the card they had played"),
                                       ("fr", "vous verrez la carte jouée à l'origine")])
def test_excalibur_prompts_say_what_excalibur_does(lang, says):
    use = Prompt(kind="excalibur", seat=0, pick=1, targets=[1, 2], optional=True).model_dump()
    text, _ = private_prompt(table(lang), use, CODEC, serial=1)
    assert says in text and text.lower().count("pass") == 1  # once: the line "You may also pass."
    give_it = Prompt(kind="give_excalibur", seat=0, pick=1, targets=[1, 2]).model_dump()
    text, _ = private_prompt(table(lang), give_it, CODEC, serial=1)
    assert ("originally played" if lang == "en" else "jouée à l'origine") in text


def test_lancelot_deck_labels_say_quest_not_round():
    for value in ("bigbox_switch", "classic_switch"):
        en, fr = texts.name_of("variant", value, "en"), texts.name_of("variant", value, "fr")
        assert "round" not in en and "Quest" in en, en
        assert "tour" not in fr and "Quête" in fr, fr


# --- Charge / Opinion Maker: who votes first, and whose turn it is -------------------------------------


def _first_vote_state():
    state = ready(7, seed=23)
    holder = seat_of(state, 4)
    state = give(state, {holder: ["opinion_maker"]})
    state, _ = propose(state)
    return state, holder


@pytest.mark.parametrize("lang,says", [("en", "Charge: {name} votes in the open, before the others."),
                                       ("fr", "📣 Vote à découvert avant les autres (carte « Charge ») : {name}.")])
def test_the_vote_message_says_who_votes_first_in_the_open(lang, says):
    state, holder = _first_vote_state()
    text, _ = vote_message(table(lang), public_view(state), CODEC, serial=1)
    assert says.format(name=NAMES[holder]) in text
    state, _ = apply_action(state, Action(seat=holder, kind="vote", choice="reject"))
    text, _ = vote_message(table(lang), public_view(state), CODEC, serial=1)
    assert "before the others" not in text and "avant les autres" not in text


@pytest.mark.parametrize("lang,says", [("en", "Not yet: {name} votes in the open, before the others."),
                                       ("fr", "Pas encore : on attend d'abord un vote à découvert, avant les autres ({name}).")])
def test_an_early_voter_is_told_who_votes_first(lang, says):
    state, holder = _first_vote_state()
    session = Session(chat_id=GROUP, title="T", game_id="g", status=PLAYING, state=state.to_json(),
                      players=[Player(id=1000 + i, name=NAMES[i]) for i in range(7)])
    service = Service(FakeRepository(), RecordingIO(), CODEC, bot_username="TestBot")
    other = seat_of(state, 1)
    with pytest.raises(Reply) as refused:
        apply_move(service.deps, session, state, Action(seat=other, kind="vote", choice="approve"), lang, ("vote", None))
    assert str(refused.value.text) == says.format(name=NAMES[holder])


# --- /idles, the team picker, the board with Targeting ------------------------------------------------


def test_idles_answers_in_the_groups_language():
    h = Harness()
    try:
        h.lobby([1, 2, 3, 4, 5])
        h.command(1, "/language fr")  # the host sets the group's language; player 2's app speaks English
        h.command(2, "/idles")
        assert "Absences" in h.io.last(GROUP).text and "Idle record" not in h.io.last(GROUP).text
    finally:
        h.close()


def _started(h: Harness, options: dict) -> Session:
    from tests.reliability.support import set_settings

    h.lobby([1, 2, 3, 4, 5, 6, 7])
    set_settings(h.repo, GROUP, "avalon", ["merlin", "assassin"], options)
    h.press_label(1, GROUP, "Start")
    from gamebot.storage.session import chat_key

    return Session.from_body(h.repo.items[chat_key(GROUP)].body)


def _selected(h: Harness) -> str:
    from gamebot.storage.session import chat_key

    s = Session.from_body(h.repo.items[chat_key(GROUP)].body)
    leader = s.players[s.game().leader].id
    return next(line for line in h.io.with_button(leader, "Propose team")[0].text.split("\n") if "Selected" in line)


@pytest.mark.parametrize("options,size,says", [({}, 2, "The team for this quest has 2 players"),
                                               ({"targeting": True}, 4, "No quest offered takes more than 4 players")])
def test_the_team_picker_refuses_a_player_more_than_the_team_needs(options, size, says):
    h = Harness()
    try:
        s = _started(h, options)
        leader = s.players[s.game().leader].id
        for name in s.names()[:size]:
            h.press_label(leader, leader, name)
        chosen = _selected(h)
        h.press_label(leader, leader, s.names()[size])  # one more than any team offered
        assert says in h.last_answer().text and _selected(h) == chosen
        h.press_label(leader, leader, s.names()[0])  # taking one off is always allowed
        assert s.names()[0] not in _selected(h)
        if options:  # once a quest is chosen, its own size
            h.press_label(leader, leader, "Quest 1 (2)")
            h.press_label(leader, leader, s.names()[0])
            assert "The team for this quest has 2 players" in h.last_answer().text
    finally:
        h.close()


@pytest.mark.parametrize("lang,note", [("en", "🔒 locked until two quests have succeeded"),
                                       ("fr", "🔒 fermée tant que deux Quêtes n'ont pas réussi")])
def test_with_targeting_the_board_shows_the_fifth_quest_locked(lang, note):
    config = GameConfig(players=7, roles=("merlin", "assassin"), options={"targeting": True})
    state, _ = new_game(config, seed=1)
    pv = public_view(state)
    text = board(table(lang), pv)
    assert "5️⃣ 4🔒" in text and note in text
    without, _ = new_game(GameConfig(players=7, roles=("merlin", "assassin")), seed=1)
    assert "🔒" not in board(table(lang), public_view(without))
    opened = state
    for quest, size in ((0, 2), (1, 3)):  # two successes: the 5th may be chosen
        opened, _ = run_quest(opened, [(opened.leader + i) % 7 for i in range(size)], quest=quest)
    assert opened.results == [True, True, None, None, None] and opened.stage == "team"
    assert "🔒" not in board(table(lang), public_view(opened))
    assert "closed" not in public_view(opened)["track"][4]


def test_ai_seats_still_play_games_through():
    """Driving random legal moves through every new sentence never fails to render."""
    import random

    config = GameConfig(players=8, roles=("merlin", "assassin", "good_lancelot", "evil_lancelot"),
                        options={"targeting": True, "excalibur": True, "trapper": True, "plot_cards": True})
    state, _ = new_game(config, seed=4)
    rng = random.Random(4)
    while not state.over:
        seat = rng.choice(actors(state))
        for p in view(state, seat)["you"]["prompts"]:
            private_prompt(table("fr", n=8), p, CODEC, serial=1, pv=public_view(state))
        state, _ = apply_action(state, ai_seat_move(state, seat, rng))
    assert end_text.game_over(table("en", n=8), public_view(state))


def test_a_side_the_name_says_in_another_grammatical_form_is_not_said_again():
    """Russian says "Гонец Добра" (of Good, genitive): the language's theme words for the side (``Good``,
    ``Good_gen``...) count as the side's name, so the role card does not add "Сторона: Добро"."""
    from gamebot.language import wording
    from gamebot.messages.table import Table

    for lang in ("ru", "en", "fr"):
        table = Table(chat_id=-1, game_id="g", lang=lang)
        assert wording.side_note(table, "good_messenger", "good") == ""
        assert wording.side_note(table, "evil_messenger", "evil") == ""
    assert wording.side_note(Table(chat_id=-1, game_id="g", lang="ru"), "merlin", "good") != ""


def test_the_reveal_names_several_plain_minions_in_the_plural():
    """Plain Servants or Minions that fill several seats are named with the language's plural theme word
    ("Minions of Mordred", "Sbires de Mordred", "Приспешники Мордреда"), one of them in the singular."""
    from engine import GameConfig
    from gamebot.messages.reveal_words import reveal_text
    from gamebot.messages.table import Table

    def evil_line(players: int, lang: str) -> str:
        text = reveal_text(Table(chat_id=-1, game_id="g", lang=lang), GameConfig(players=players, roles=["merlin", "assassin"]))
        return text.split("\n")[1]

    assert evil_line(10, "en") == "• Evil: the Assassin and Minions of Mordred open their eyes and see each other."
    assert evil_line(5, "en") == "• Evil: the Assassin and a Minion of Mordred open their eyes and see each other."
    assert "Sbires de Mordred" in evil_line(7, "fr") and "Приспешники Мордреда" in evil_line(7, "ru")
    spies = reveal_text(Table(chat_id=-1, game_id="g", lang="en", theme="resistance"),
                        GameConfig(players=10, roles=[], theme="resistance"))
    assert "• Spies: Spies open their eyes and see each other." in spies
