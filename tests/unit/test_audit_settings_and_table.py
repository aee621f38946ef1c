"""The audit's findings about the settings panel, the lobby and the table (issue: secrecy, rules and
settings), through ``Service.handle`` with the in-memory repository and the recording Bot API."""
from __future__ import annotations

import random

import pytest

from engine import ROLES, GameConfig, Theme, validate_config
from gamebot.compose.settings_check import check
from gamebot.compose.settings_panel import HALF_ROW, Pages
from gamebot.language import texts
from gamebot.messages.table import Table
from gamebot.storage.session import chat_key
from localdev import updates as U
from localdev.autoplay import Driver, Policy
from tests.reliability.support import set_settings
from tests.unit.gamebot_fakes import GROUP, Harness, HarnessScreen, session
from tests.unit.timer_fakes import Timed


def buttons(h: Harness, chat: int) -> list[str]:
    return [b.text for row in h.io.last(chat).keyboard or [] for b in row]


def open_panel(h: Harness, players: list[int], lang: str = "en") -> None:
    h.langs = {uid: lang for uid in players}
    h.lobby(players, join="🙋")
    h.press_label(players[0], GROUP, "⚙️")


# --- themes ---------------------------------------------------------------------------------------------------


def test_the_resistance_offers_only_its_own_options_and_the_engine_refuses_the_others():
    """The Resistance rulebook: Plot cards, Targeting and Blind Spies. Lady of the Lake, Excalibur, Trapper,
    the Lancelot decks, the Messengers' ranks and the hidden Sorcerer are Avalon's."""
    from gamebot.messages.settings import available_modules

    assert {key for _, key, _ in available_modules("resistance")} == {"plot_cards", "targeting", "blind_spies"}
    assert {key for _, key, _ in available_modules("avalon")} >= {
        "lady_of_the_lake", "excalibur", "trapper", "lancelot", "senior_junior_messengers", "sorcerer_hidden"}
    for option in ("lady_of_the_lake", "excalibur", "trapper"):
        issues = validate_config(GameConfig(theme=Theme.RESISTANCE, players=7, roles=(), options={option: True}))
        assert [(i.level, i.code) for i in issues] == [("error", "option_wrong_theme")]
        table = Table(chat_id=GROUP, game_id="g", lang="fr")
        from gamebot.messages.settings import issue_text

        assert issue_text(table, issues[0]).endswith("ne fait pas partie du jeu La Résistance.")


def test_the_panel_of_the_resistance_shows_only_its_options(h):
    open_panel(h, [1, 2, 3, 4, 5])
    h.press_label(1, 1, "Game: Avalon")
    h.press_label(1, 1, "Options")
    labels = " ".join(buttons(h, 1))
    assert "Targeting" in labels and "Blind Spies" in labels and "The Plot Thickens" in labels
    for avalon_only in ("Lady of the Lake", "Excalibur", "Trapper", "Lancelot", "Sorcerer", "Messenger"):
        assert avalon_only not in labels


def test_newgame_resistance_opens_the_resistance_in_a_group_that_played_avalon(h):
    h.lobby([1, 2, 3, 4, 5])
    h.command(1, "/cancel")
    h.command(1, "/newgame resistance")
    assert session(h).settings.theme == "resistance" and session(h).settings.roles == []
    assert "The Resistance" in h.io.last(GROUP).text
    h.command(1, "/cancel")
    h.command(1, "/newgame avalon")
    assert session(h).settings.theme == "avalon" and session(h).settings.roles == ["merlin", "assassin"]
    h.command(1, "/cancel")
    h.command(1, "/newgame")  # no argument: the group's last settings
    assert session(h).settings.theme == "avalon"


# --- the settings panel ---------------------------------------------------------------------------------------


def test_the_options_page_has_no_timers_switch_and_explains_every_option(h):
    open_panel(h, [1, 2, 3, 4, 5])
    h.press_label(1, 1, "Options")
    page = h.io.last(1)
    assert not [b for b in buttons(h, 1) if "Timer" in b]  # the ⏱ page owns what a missing vote counts as
    from gamebot.messages.settings import available_modules

    for _, key, _ in available_modules("avalon"):
        assert f"<b>{texts.t(f'module.{key}')}</b>: {texts.t(f'modulehelp.{key}')}" in page.text


def test_settings_are_checked_for_the_players_who_joined_and_say_which_table_sizes_work(h):
    open_panel(h, [1, 2, 3])
    assert "3 joined so far: these settings can be played by 5–10 players." in h.io.last(1).text
    h.press_label(1, 1, "Characters")
    for role in ("Percival", "Morgana", "Mordred"):
        h.press_label(1, 1, role)
    text = h.io.last(1).text
    # Merlin, Percival | the Assassin, Morgana, Mordred: 3 Evil characters need 7 or more players
    assert "3 joined so far: these settings can be played by 7–10 players." in text
    assert "Evil seats" not in text  # no error about a table size that may never play
    for uid in (4, 5, 6):
        h.send(U.start(h.user(uid)))
        h.press_label(uid, GROUP, "🙋")
    h.press_label(1, 1, "Back")
    text = h.io.last(1).text
    assert "Checked for the 6 players who joined." in text
    assert "3 Evil characters chosen, but this game has only 2 Evil seats." in text
    assert "These settings can be played by 7–10 players." in text


def test_done_says_saved_only_when_the_table_can_play_the_settings(h):
    open_panel(h, list(range(1, 7)))
    h.press_label(1, 1, "Done")
    assert h.last_answer().text == "Settings saved." and not h.last_answer().alert
    h.press_label(1, GROUP, "⚙️")
    h.press_label(1, 1, "Characters")
    for role in ("Percival", "Morgana", "Mordred"):
        h.press_label(1, 1, role)
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Done")
    answer = h.last_answer()
    assert answer.alert and answer.text.startswith("Saved, but these settings cannot be played yet:")
    assert "Evil seats" in answer.text


def test_every_toggle_says_what_is_set_now(h):
    open_panel(h, [1, 2, 3, 4, 5])
    assert "🎭 Game: Avalon" in buttons(h, 1) and "🌐 Language: English" in buttons(h, 1)
    h.press_label(1, 1, "🎭 Game: Avalon")
    assert "🎭 Game: The Resistance" in buttons(h, 1)
    h.press_label(1, 1, "Time limits")
    assert "🗳 Missing vote counts as: Approve" in buttons(h, 1)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_settings_buttons_are_whole_words_that_fit_a_phone(lang):
    """No label is cut ("Evil Sorcerer hidden from Merl"): every button is built from whole catalog words
    and, when it shares its row, fits half a phone's width."""
    from engine.presets import PRESETS
    from gamebot.botapi.callbacks import Codec
    from gamebot.storage.session import Settings

    table = Table(chat_id=GROUP, game_id="g", lang=lang, title="Group")
    settings = Settings(roles=["good_lancelot", "evil_lancelot", "merlin", "assassin"],
                        options={"lancelot": "classic_switch", "sorcerer_hidden": True})
    pages = Pages(table, Codec("k"), settings, 5, lang, timers_enforced=True)
    names = ["main", "roles", "options", "presets", "assassin", "language", "timers", "m3", "k0"]
    for theme in ("avalon", "resistance"):
        settings.theme = theme
        table.theme = theme
        for name in names:
            if theme == "resistance" and name == "m3":
                continue
            _, kb = pages.page(name)
            for row in kb:
                for b in row:
                    assert len(b.text) <= 40, b.text
                    if len(row) > 1:
                        assert len(b.text) <= HALF_ROW, (name, b.text)
    for role in ROLES.values():
        if role.filler:
            continue  # plain Servants and Minions fill the seats: no button
        assert texts.has(f"rolebutton.{role.id}", lang)
    assert PRESETS


def test_each_timer_limit_is_one_tap_away(h):
    open_panel(h, [1, 2, 3, 4, 5])
    h.press_label(1, 1, "Time limits")
    h.press_label(1, 1, "Vote: 2 min")
    h.press_label(1, 1, "1 min")  # from 2 minutes to 1: one choice, not seven taps through every value
    assert session(h).settings.timers.limits == {"vote": 60}
    assert "Vote: <b>1 min</b>" in h.io.last(1).text


def test_an_option_with_variants_offers_each_variant_at_once(h):
    open_panel(h, [1, 2, 3, 4, 5])
    h.press_label(1, 1, "Characters")
    for lancelot in ("Lancelot (Good)", "Lancelot (Evil)"):  # (the variants need both)
        h.press_label(1, 1, lancelot)
    h.press_label(1, 1, "Back")
    h.press_label(1, 1, "Options")
    h.press_label(1, 1, "Lancelot: Off")
    page = h.io.last(1)
    assert [b.text for row in page.keyboard for b in row] == [
        "🔘 Off", "▫️ Drawn every Quest (Big Box)", "▫️ Drawn from Quest 3 (French)", "▫️ Dealt face up (Big Box)",
        "▫️ Dealt face up (French)", "⬅️ Back"]
    h.press_label(1, 1, "Dealt face up (French)")
    assert session(h).settings.options == {"lancelot": "french_predealt"}
    assert "✅ Lancelot: Dealt face up (French)" in buttons(h, 1)


# --- who assassinates without an Assassin card ------------------------------------------------------------------


def test_the_designated_assassin_is_in_the_lobby_and_on_their_role_card(h):
    players = list(range(1, 8))
    h.lobby(players)
    set_settings(h.repo, GROUP, "avalon", ["merlin", "morgana", "percival", "mordred"], {})
    s = session(h)
    s.settings.assassin = "morgana"
    from gamebot.storage.store import Item

    item = h.repo.items[chat_key(GROUP)]
    h.repo.items[chat_key(GROUP)] = Item(key=item.key, body=s.body(), version=item.version)
    h.press_label(1, GROUP, "Settings")
    assert "🗡 Assassinates (no Assassin card): Morgana" in h.io.last(1).text
    h.press_label(1, 1, "Done")
    assert "🗡 Assassinates: Morgana" in h.io.chat(GROUP)[0].text
    h.press_label(1, GROUP, "Start")
    state = session(h).game()
    morgana = state.roles.index("morgana")
    card = next(m.text for m in h.io.chat(players[morgana]) if m.text.startswith("🎭"))
    assert "You also play the Assassin: if Good completes three Quests, you name Merlin." in card
    mordred = state.roles.index("mordred")
    card = next(m.text for m in h.io.chat(players[mordred]) if m.text.startswith("🎭"))
    name = session(h).players[morgana].name
    assert f"• {name}: assassinates at the end (designated)" in card


# --- the Reveal as players see it ------------------------------------------------------------------------------


def test_rules_tell_the_reveal_of_this_game_with_the_senior_and_junior_messengers(h):
    h.lobby(list(range(1, 9)))
    set_settings(h.repo, GROUP, "avalon", ["merlin", "assassin", "good_messenger", "good_messenger",
                                           "evil_messenger"], {"senior_junior_messengers": True})
    h.command(1, "/rules")
    text = h.io.last(GROUP).text
    assert "🌙 <b>The Reveal in this game</b>" in text
    assert "• The Junior Messenger shows a thumb; the Senior Messenger opens their eyes and sees them" in text
    assert "• Merlin sees " in text


# --- stale buttons ---------------------------------------------------------------------------------------------


def test_the_buttons_of_an_expired_team_picker_are_taken_away():
    h = Timed()
    try:
        h.lobby([1, 2, 3, 4, 5])
        h.press_label(1, GROUP, "Start")
        state = session(h).game()
        leader = session(h).players[state.leader].id
        picker = h.io.with_button(leader, "Propose team")[0]  # in the Leader's private chat
        timer, outcome = h.fire_next("expire")
        assert outcome == "expired"
        assert picker.keyboard is None  # the expired picker has no buttons left
        after = session(h).players[session(h).game().leader].id
        assert h.io.with_button(after, "Propose team")[0] is not picker  # the new Leader's picker
    finally:
        h.close()


def test_a_status_copy_of_the_vote_loses_its_buttons_when_the_vote_ends(h):
    players = [1, 2, 3, 4, 5]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(1)))
    while h.io.with_button(GROUP, "Approve") is None:
        assert driver._picker()
    h.command(2, "/status")
    copy = h.io.last(GROUP)
    assert any("Approve" in b.text for row in copy.keyboard for b in row)
    for uid in players:
        h.press_label(uid, GROUP, "Approve")
    assert copy.keyboard is None
    assert all(m.keyboard is None for m in h.io.chat(GROUP) if "Still to vote" in m.text)


def test_a_board_replaced_by_status_loses_its_button_and_the_last_one_loses_it_at_the_end(h):
    players = [1, 2, 3, 4, 5]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    first = session(h).board_msg
    h.command(2, "/status")
    boards = [m for m in h.io.chat(GROUP) if m.text.startswith("📜") or "\n📜 " in m.text]
    assert len(boards) == 2 and session(h).board_msg == boards[-1].message_id != first
    assert boards[0].keyboard is None and boards[-1].keyboard  # the history button: on the latest board only
    Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(1))).play()
    while h.idle():
        pass
    assert all(m.keyboard is None for m in boards)


def test_quest_buttons_that_ran_out_of_time_are_taken_away():
    """The quest's card buttons (the round message, and a /status copy of it) go once the time limit
    played the missing cards."""
    h = Timed()
    try:
        players, quest_msg, copy = _quest_and_its_status_copy(h)
        assert [b.text for row in copy.keyboard for b in row] == ["✅ Success", "❌ Fail"]
        assert session(h).deadline.phase == "quest"
        _, outcome = h.fire_next("expire")
        assert outcome == "expired"
        assert quest_msg.keyboard is None and copy.keyboard is None
        assert copy.text == quest_msg.text and "buttons below" not in copy.text  # (the copy closed as well)
        assert not any(m.keyboard for uid in players for m in h.io.chat(uid) if "Success" in str(m.keyboard))
    finally:
        h.close()


def _quest_and_its_status_copy(h):
    """Five players approve the first team; then /status sends a copy of the quest message."""
    players = [1, 2, 3, 4, 5]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(1)))
    while h.io.with_button(GROUP, "Approve") is None:
        assert driver._picker()
    for uid in players:
        h.press_label(uid, GROUP, "Approve")
    quest_msg = h.io.with_button(GROUP, "Success")[0]
    h.command(2, "/status")
    copy = h.io.last(GROUP)
    assert copy is not quest_msg and "play your card with the buttons below" in copy.text and copy.keyboard
    return players, quest_msg, copy


def test_a_status_copy_of_the_quest_closes_as_the_quest_message_when_the_last_card_is_in(h):
    """The copy no longer tells the team to play with buttons it has lost, nor counts cards still to come."""
    players, quest_msg, copy = _quest_and_its_status_copy(h)
    team = session(h).game().team
    for seat in team:
        h.press_label(players[seat], GROUP, "Success")
    assert copy.keyboard is None and quest_msg.keyboard is None
    assert copy.text == quest_msg.text and f"Cards played: {len(team)}/{len(team)}" in copy.text
    assert "buttons below" not in copy.text



# --- small things players run into ------------------------------------------------------------------------------


def test_the_host_is_told_once_how_to_let_the_bot_pin_the_board(h):
    h.io.cannot_pin = True
    players = [1, 2, 3, 4, 5]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    hints = [m for m in h.io.chat(GROUP) if "could not pin" in m.text]
    assert len(hints) == 1 and "make me an admin" in hints[0].text
    h.command(1, "/cancel")
    h.command(1, "/newgame")
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    assert len([m for m in h.io.chat(GROUP) if "could not pin" in m.text]) == 1  # once per group


def test_status_during_the_quest_names_who_is_still_to_play(h):
    players = [1, 2, 3, 4, 5]
    h.lobby(players)
    h.press_label(1, GROUP, "Start")
    driver = Driver(HarnessScreen(h), GROUP, players, Policy(rng=random.Random(1)))
    while h.io.with_button(GROUP, "Approve") is None:
        assert driver._picker()
    for uid in players:
        h.press_label(uid, GROUP, "Approve")
    s = session(h)
    team = s.game().team
    h.press_label(players[team[0]], GROUP, "Success")  # a card from the round message's buttons
    h.command(3, "/status")
    board, quest = (m.text for m in h.io.chat(GROUP)[-2:])  # the board, then the quest with its buttons
    assert "Cards played: 1/2" in quest and h.io.last(GROUP).keyboard
    waiting = [s.players[seat].name for seat in team[1:]]
    assert f"⏳ Waiting (Quest cards): {', '.join(waiting)}" in board
    assert s.players[team[0]].name not in board.split("⏳")[1]


def test_check_counts_only_errors_of_the_table_that_will_play():
    from gamebot.storage.session import Settings

    st = Settings(roles=["merlin", "assassin", "morgana", "mordred", "percival"])
    c = check(st, 3)
    assert c.playable_sizes == [7, 8, 9, 10] and c.issues == [] and c.playable
    c = check(st, 6)
    assert c.shown_for == 6 and not c.playable and [i.code for i in c.errors] == ["too_many_evil"]


def test_the_panel_and_the_table_speak_french(h):
    h.langs = {uid: "fr" for uid in range(1, 8)}
    h.command(1, "/language fr")
    open_panel(h, [1, 2, 3], lang="fr")
    text = h.io.last(1).text
    assert "3 joueurs pour l'instant : ces réglages se jouent à 5–10 joueurs." in text
    assert "🎭 Jeu : Avalon" in buttons(h, 1) and "🌐 Langue : Français" in buttons(h, 1)
    h.press_label(1, 1, "Personnages")
    for role in ("Perceval", "Morgane", "Mordred"):
        h.press_label(1, 1, role)
    h.press_label(1, 1, "Retour")
    assert "ces réglages se jouent à 7–10 joueurs." in h.io.last(1).text
    h.press_label(1, 1, "Terminé")
    assert h.last_answer().text == "Réglages enregistrés."  # a table of 7 to 10 can still form
    h.press_label(1, GROUP, "⚙️")
    h.press_label(1, 1, "Personnages")
    for role in ("Oberon", "Brute"):  # five Evil characters: no table can play them
        h.press_label(1, 1, role)
    h.press_label(1, 1, "Retour")
    assert "aucune table de 5 à 10 joueurs ne peut jouer ces réglages" in h.io.last(1).text
    h.press_label(1, 1, "Terminé")
    answer = h.last_answer()
    assert answer.alert and answer.text.startswith("Enregistré, mais ces réglages ne peuvent pas encore être joués")
    h.command(1, "/rules")
    assert "🌙 <b>La Révélation de cette partie</b>" in h.io.last(GROUP).text
    assert "• Perceval voit Merlin et Morgane, sans savoir qui est qui." in h.io.last(GROUP).text


def test_the_pin_hint_speaks_the_groups_language(h):
    h.io.cannot_pin = True
    h.command(1, "/language fr")
    h.lobby([1, 2, 3, 4, 5], join="🙋")
    h.press_label(1, GROUP, "▶️")
    hints = [m.text for m in h.io.chat(GROUP) if "épingler" in m.text]
    assert len(hints) == 1 and "nommez-moi administrateur" in hints[0]


@pytest.mark.parametrize("lang,expected", [
    ("en", "🃏 At the Reveal, someone checks the loyalty of the first Leader: you. You do not learn who."),
    ("fr", "🃏 Pendant la Révélation, quelqu'un vérifie l'allégeance du premier Roi : vous. Vous ne saurez pas qui."),
])
def test_the_leader_checked_by_the_cleric_is_asked_without_being_told_who_looks(lang, expected):
    from gamebot.botapi.callbacks import Codec
    from gamebot.messages.prompts import private_prompt

    table = Table(chat_id=GROUP, game_id="g", lang=lang, names=["Alice", "Bob", "Carol"])
    prompt = {"kind": "loyalty_card", "seat": 0, "pick": 0, "choices": ["good", "evil"], "info": {"source": "cleric"}}
    text, kb = private_prompt(table, prompt, Codec("k"), 3, None, None)
    assert text.startswith(expected)
    assert not any(name in text for name in ("Bob", "Carol"))
    assert len([b for row in kb for b in row]) == 2
