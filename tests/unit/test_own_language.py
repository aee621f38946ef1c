"""A person's own language, chosen with /language in the bot's private chat: everything the bot sends
them in private (role card, prompts, /status, /help, toasts to their presses) speaks it in every group,
a game already running included, while each group keeps its own language."""
from __future__ import annotations

import copy

from localdev import updates as U
from tests.unit.gamebot_fakes import GROUP, Harness, session


def record(h: Harness, uid: int):
    from gamebot.storage.session import UserRecord, user_key

    return UserRecord.model_validate(h.repo.items[user_key(uid)].body)


def labels(msg) -> list[str]:
    return [b.text for row in msg.keyboard or [] for b in row]


def test_the_private_picker_offers_every_language_and_following_the_app(h):
    h.send(U.start(h.user(2)))
    h.command(2, "/language", chat_id=2)
    picker = h.io.last(2)
    assert picker.text.startswith("🌐 <b>Your language</b>: your Telegram app's, else the group's")
    assert labels(picker) == ["English", "Deutsch", "Español", "Français", "Italiano", "Português (Brasil)",
                              "Русский", "✅ 📱 Telegram app / group"]
    h.press_label(2, 2, "Русский")
    assert record(h, 2).chosen_lang == "ru"
    done = h.io.msgs[(2, picker.message_id)]
    assert done.text == "🌐 Теперь твой язык в личных сообщениях для всех групп: Русский." and not done.keyboard
    assert h.last_answer().text == done.text
    # the picker again: the choice is marked, and everything in private speaks it
    h.command(2, "/language", chat_id=2)
    assert h.io.last(2).text.startswith("🌐 <b>Твой язык</b>: Русский")
    assert "✅ Русский" in labels(h.io.last(2)) and "📱 Приложение Telegram / группа" in labels(h.io.last(2))
    h.command(2, "/help", chat_id=2)
    assert "<b>Команды</b>" in h.io.last(2).text
    h.command(2, "/status", chat_id=2)
    assert h.io.last(2).text == "Сейчас ты не в игре."
    # following the app again
    h.press_label(2, 2, "📱")
    assert record(h, 2).chosen_lang == ""
    assert h.last_answer().text.startswith("🌐 From now on I write to you here in your Telegram app's language")
    h.command(2, "/help", chat_id=2)
    assert "<b>Commands</b>" in h.io.last(2).text


def test_a_language_named_in_private_is_set_at_once_and_the_group_keeps_its_own(h):
    h.command(1, "/language de")  # the group: German
    h.send(U.start(h.user(2)))
    h.command(2, "/language fr", chat_id=2)
    assert record(h, 2).chosen_lang == "fr"
    assert h.io.last(2).text == "🌐 Votre langue désormais, dans tous les groupes : Français."
    assert session(h).lang == "de"
    h.command(2, "/language klingon", chat_id=2)
    assert "Je ne parle pas « klingon »" in h.io.last(2).text


def test_the_role_card_and_prompts_follow_the_chosen_language_in_a_group_of_another(h):
    h.send(U.start(h.user(3)))
    h.command(3, "/language it", chat_id=3)
    h.lobby([1, 2, 3, 4, 5])
    assert session(h).players[2].lang == "it"
    h.press_label(1, GROUP, "Start")
    assert any(t.startswith("🎭 <b>Il tuo ruolo segreto") for t in h.io.texts(3))
    assert any(t.startswith("🎭 <b>Your secret role") for t in h.io.texts(2))
    assert "The game begins" in "\n".join(h.io.texts(GROUP))  # the group stays English


def test_a_choice_made_during_a_game_reaches_the_seat_from_its_next_private_message_on(h):
    h.lobby([1, 2, 3, 4, 5])
    h.press_label(1, GROUP, "Start")
    s = session(h)
    leader = s.players[s.game().leader]
    before = len(h.io.chat(leader.id))
    h.command(leader.id, "/language es", chat_id=leader.id)
    s = session(h)
    assert s.players[s.seat_of(leader.id)].lang == "es" and s.lang == "en"
    assert record(h, leader.id).chosen_lang == "es"
    h.command(leader.id, "/status", chat_id=leader.id)  # the role and the team picker again: in Spanish
    fresh = "\n".join(m.text for m in h.io.chat(leader.id)[before:])
    assert "Tu rol secreto" in fresh and "Your secret role" not in fresh
    # a press on the picker is answered in Spanish; the group's board stays English
    picker = next(m for m in reversed(h.io.chat(leader.id)) if m.keyboard)
    assert picker.text.startswith("👑") and "elige <b>2</b> jugadores" in picker.text
    h.press(leader.id, picker, picker.keyboard[0][0].data)
    assert h.last_answer().text.startswith("Tu elección: ")  # the toast names who is on the team so far
    board = h.io.msgs[(GROUP, session(h).board_msg)].text
    assert "Quests:" in board  # the group's board stays English


def test_a_redelivered_choice_is_applied_once(h):
    h.lobby([1, 2, 3, 4, 5])
    update = U.command(U.private(h.user(2)), h.user(2), "/language pt")
    h.send(update)
    assert session(h).players[1].lang == "pt"
    seen = list(session(h).seen)
    h.command(2, "/language", chat_id=2)
    h.press_label(2, 2, "📱")  # meanwhile: back to following the app
    assert session(h).players[1].lang == "en"
    h.send(copy.deepcopy(update))  # Telegram redelivers the first one: not applied again
    assert session(h).players[1].lang == "en" and record(h, 2).chosen_lang == ""
    assert update["update_id"] in seen
    assert h.io.texts(2).count("🌐 Seu idioma a partir de agora, em todos os grupos: Português (Brasil).") == 1
    # out of any game, the record keeps the update id
    h.send(U.start(h.user(9)))
    alone = U.command(U.private(h.user(9)), h.user(9), "/language ru")
    h.send(alone)
    h.command(9, "/language en", chat_id=9)
    h.send(copy.deepcopy(alone))
    assert record(h, 9).chosen_lang == "en"
