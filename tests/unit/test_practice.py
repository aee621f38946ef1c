"""/practice (issue 30): a game of one person and 4 to 9 bots in the person's private chat, in their
language, with the settings panel; its role card says it is practice and nothing of it counts. Refusals:
in a group, a number of bots out of range, while in another game, a second practice."""
from __future__ import annotations

import pytest

from gamebot.language import texts
from gamebot.language.markup import plain
from gamebot.storage.seats import is_ai_seat_id
from gamebot.storage.session import Session, chat_key
from localdev import updates as U
from tests.ai_seat_helpers import play_out
from tests.unit.gamebot_fakes import GROUP, Harness
from tests.unit.timer_fakes import Timed

ME = 7


@pytest.fixture
def h():
    """The unit harness with phase timers on (``Timed``), closed after the test."""
    harness = Timed()
    yield harness
    harness.close()


def practice(h: Timed, text: str = "/practice") -> Session | None:
    h.send(U.start(h.user(ME)))
    Harness.command(h, ME, text, chat_id=ME)
    item = h.repo.items.get(chat_key(ME))
    return Session.from_body(item.body) if item is not None else None


def test_practice_opens_a_lobby_of_you_and_four_ai_seats_in_your_private_chat_and_plays_to_the_end(h: Timed) -> None:
    s = practice(h)
    assert s is not None and s.practice and s.chat_id == ME
    assert len(s.players) == 5 and s.players[0].id == ME and all(is_ai_seat_id(p.id) for p in s.players[1:])
    lobby = h.io.msgs[(ME, s.lobby_msg)]
    labels = [b.text for row in lobby.keyboard for b in row]
    assert "🤖 Add a bot" in labels and "⚙️ Settings" in labels and not any("Join" in t for t in labels)
    h.press_label(ME, ME, "⚙️ Settings")  # the settings panel comes to the same chat
    assert any("Done" in b.text for m in h.io.chat(ME) for row in (m.keyboard or []) for b in row)
    h.press_label(ME, ME, "▶️ Start")
    card = next(m.text for m in h.io.chat(ME) if "Your secret role in" in m.text)
    assert card.startswith("🎯 <b>Practice game</b>")
    play_out(h, [ME], chat=ME)
    s = Session.from_body(h.repo.items[chat_key(ME)].body)
    assert s.status == "ended"
    assert not [k for k in h.repo.items if k.startswith("stats#")]  # nothing counts
    assert not [m for m in h.io.outs if is_ai_seat_id(m.chat_id)]  # and the bots were never sent anything


def test_practice_speaks_the_players_language(h: Timed) -> None:
    h.langs[ME] = "fr"
    s = practice(h, "/practice 5")
    assert s is not None and s.lang == "fr" and len(s.players) == 6
    assert s.players[1].name == "🤖 Ada (bot)"
    assert "Entraînement" in h.io.msgs[(ME, s.lobby_msg)].text


def test_practice_is_refused_in_a_group_with_a_reason(h: Timed) -> None:
    h.send(U.start(h.user(ME)))
    Harness.command(h, ME, "/practice")
    assert h.io.texts(GROUP)[-1] == "/practice works in my private chat: open it and send /practice there."
    assert chat_key(GROUP) not in h.repo.items


def test_practice_with_too_many_ai_seats_is_refused(h: Timed) -> None:
    assert practice(h, "/practice 12") is None
    assert h.io.texts(ME)[-1] == "Choose 4 to 9 bots, for example /practice 6."


def test_practice_while_in_another_game_is_refused_and_changes_nothing(h: Timed) -> None:
    h.lobby([ME, 2, 3])
    assert practice(h) is None
    assert h.io.texts(ME)[-1].startswith("You are already playing in another game (")


def test_a_second_practice_is_refused_and_cancel_ends_the_first(h: Timed) -> None:
    first = practice(h)
    assert first is not None
    Harness.command(h, ME, "/practice", chat_id=ME)
    assert h.io.texts(ME)[-1] == "A practice game is already open here: play it, or send /cancel to end it."
    Harness.command(h, ME, "/cancel", chat_id=ME)
    assert Session.from_body(h.repo.items[chat_key(ME)].body).status == "cancelled"


def test_cancel_in_private_without_a_practice_says_it_works_in_a_group(h: Timed) -> None:
    h.send(U.start(h.user(ME)))
    Harness.command(h, ME, "/cancel", chat_id=ME)
    assert h.io.texts(ME)[-1].startswith("This works in a group")


def test_practice_names_its_game_and_a_practising_player_cannot_join_a_group_game(h: Timed) -> None:
    s = practice(h, "/practice resistance 5")
    assert s is not None and s.settings.theme == "resistance" and len(s.players) == 6
    for uid in (2, 3):
        h.send(U.start(h.user(uid)))
    h.command(2, "/newgame")
    h.press_label(ME, GROUP, "Join")
    assert h.last_answer().text.startswith("You are already playing in another game (Practice)")
    assert [p.id for p in Session.from_body(h.repo.items[chat_key(GROUP)].body).players] == [2]


def test_the_picture_names_an_ai_seat_as_a_bot_without_its_emoji():
    from PIL import ImageFont

    from gamebot.story.picture import Glyphs, load_fonts

    fonts = load_fonts(ImageFont)
    assert Glyphs().clean(fonts.bold, "🤖 Ada (bot)").strip() == "Ada (bot)"


def test_practice_without_start_first_still_seats_the_person(h: Timed) -> None:
    Harness.command(h, ME, "/practice", chat_id=ME)  # (never pressed Start: writing to the bot is enough)
    s = Session.from_body(h.repo.items[chat_key(ME)].body)
    assert s.players[0].id == ME and len(s.players) == 5


LANGS = ["en", "fr", "es", "de", "ru", "pt", "it"]


@pytest.mark.parametrize("lang", LANGS)
def test_practice_speaks_of_this_chat_not_of_a_group_or_a_private_chat(h: Timed, lang: str) -> None:
    """Issue 37: the start, the role card and the answers to the lobby's buttons say the game is played in
    this chat (the group's game says "check our private chat", "play in the group"), in every language."""
    h.langs[ME] = lang
    s = practice(h)
    assert s is not None and s.lang == lang
    h.press_label(ME, ME, texts.t("lobby.button.settings", lang))
    assert h.last_answer().text == plain(texts.t("lobby.settings_sent.practice", lang))
    panel = next(m.text for m in h.io.chat(ME) if m.message_id not in (s.lobby_msg,) and "⚙️" in m.text)
    assert plain(texts.t("settings.language.practice", lang, language=texts.language_name(lang))) in plain(panel)
    h.press_label(ME, ME, texts.t("lobby.button.start", lang))
    start = h.io.msgs[(ME, s.lobby_msg)].text
    group_start = texts.t("ev.GameStarted", lang, players=5)
    assert group_start not in start and texts.t("ev.GameStarted.practice", lang, players=5) in start
    card = next(m.text for m in h.io.chat(ME) if texts.t("practice.card", lang) in m.text)
    assert texts.t("role.keep_secret", lang) not in card and texts.t("role.keep_secret.practice", lang) in card
    cards_line = next(line for line in card.split("\n") if line.startswith("🃏"))
    group_line = texts.t("role.cards", lang, cards="X").split("X")[-1]  # "... of the group's quest message ..."
    assert group_line not in cards_line


def test_in_practice_a_result_comes_before_what_it_asks_of_the_player(h: Timed) -> None:
    """Issue 37: in a practice chat, the quest's result and the new round's announcement come before the
    Leader's team picker of that round (a group's game sends the picker to the private chat first)."""
    s = practice(h)
    assert s is not None
    h.press_label(ME, ME, "▶️ Start")
    play_out(h, [ME], chat=ME)
    sent = [o.text or "" for o in h.io.outs if o.op == "send" and o.chat_id == ME]
    pickers = [i for i, text in enumerate(sent) if "players for Quest" in text and "(team 1 of 5)" in text]
    later = [i for i in pickers if "players for Quest 1 " not in sent[i]]
    assert later, "the person led no team after the first round: choose another seed"
    for i in later:
        quest = int(sent[i].split("players for Quest ")[1].split()[0])
        announced = [j for j, text in enumerate(sent) if f"<b>Round {quest}</b>" in text]
        assert announced and announced[0] < i, (quest, sent[i])


def test_status_in_a_practice_lobby_shows_the_lobby(h: Timed) -> None:
    """/status in the practice chat before the start: the lobby it is in (it said "You are not in a game")."""
    s = practice(h)
    assert s is not None
    Harness.command(h, ME, "/status", chat_id=ME)
    last = h.io.chat(ME)[-1]
    assert last.text.startswith("🎯 <b>Practice: Avalon</b>") and last.keyboard
    assert "You are not in a game" not in last.text


@pytest.mark.parametrize("lang", LANGS)
def test_a_group_command_in_a_practice_chat_says_this_game_is_played_here(h: Timed, lang: str) -> None:
    """/leave in the practice chat: the game is here and /cancel ends it (not "add me to a group")."""
    h.langs[ME] = lang
    assert practice(h) is not None
    Harness.command(h, ME, "/leave", chat_id=ME)
    assert h.io.texts(ME)[-1] == plain(texts.t("practice.group_only", lang, command="/leave"))
    Harness.command(h, 8, "/leave", chat_id=8)  # (someone without a practice game: the group's answer)
    assert h.io.texts(8)[-1] == plain(texts.t("error.group_only", "en"))


def test_a_practice_chat_speaks_one_language_when_the_panel_changes_it(h: Timed) -> None:
    """The panel's 🌐 Language in a practice game: the table, the panel, the role card and the prompts all
    change to it (the board turned German while the role card and the picker stayed English)."""
    s = practice(h)
    assert s is not None and s.lang == "en"
    h.press_label(ME, ME, "⚙️ Settings")
    h.press_label(ME, ME, "🌐")
    h.press_label(ME, ME, "Deutsch")
    s = Session.from_body(h.repo.items[chat_key(ME)].body)
    assert s.lang == "de" and s.players[0].lang == "de"
    assert any("Einstellungen für Übung" in m.text for m in h.io.chat(ME))
    h.press_label(ME, ME, "▶️")
    card = next(m.text for m in h.io.chat(ME) if "Übungspartie" in m.text)
    assert "Deine geheime Rolle in Übung" in card
    assert not any("Your secret role" in m.text or "choose <b>" in m.text for m in h.io.chat(ME))


def test_language_in_a_practice_chat_changes_the_table_too(h: Timed) -> None:
    """/language fr in the practice chat (the person's own language): the practice table follows, its lobby
    drawn again in French, so that the one chat keeps one language."""
    s = practice(h)
    assert s is not None
    Harness.command(h, ME, "/language fr", chat_id=ME)
    s = Session.from_body(h.repo.items[chat_key(ME)].body)
    assert s.lang == "fr" and s.players[0].lang == "fr"
    assert "Entraînement" in h.io.msgs[(ME, s.lobby_msg)].text
