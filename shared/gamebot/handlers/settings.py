"""Settings: the host's presses on the private settings panel, and the settings a new lobby starts
with (``/newgame <game>``)."""
from __future__ import annotations

from telegram import User

from gamebot.botapi.buttons import Panel, Pressed, SettingsDone
from gamebot.botapi.telegram_io import Out
from gamebot.compose import redraw, settings_check, settings_panel
from gamebot.compose.context import Deps, lang_of
from gamebot.handlers import settings_ops
from gamebot.handlers.handling import Job, finish, host_check, transact
from gamebot.language import texts
from gamebot.messages.settings import needs_line
from gamebot.outbox.plan import Plan, Reply
from gamebot.storage.session import LOBBY, Session, Settings

# What ``/newgame <word>`` may name: the start of a game's name in any of our languages.
GAME_WORDS = {"res": "resistance", "rés": "resistance", "ava": "avalon"}


def lobby_settings(previous: Settings | None, args: str) -> Settings:
    """Settings for a new lobby: the group's previous ones (or the defaults), in the game the command
    names if it names one (``/newgame resistance``, ``/newgame avalon``), whatever the group played
    before."""
    settings = previous.model_copy(deep=True) if previous is not None else Settings()
    word = args.strip().lower()[:3]
    if word in GAME_WORDS:
        settings.switch_theme(GAME_WORDS[word])
    return settings


async def on_button(deps: Deps, job: Job, pressed: Pressed) -> None:
    q = job.query
    user = q.from_user
    msg_id = q.message.message_id if q.message else None

    def decide(s: Session | None) -> Plan:
        lang = lang_of(user, s)
        if s is None or s.game_id != pressed.game_id or s.status != LOBBY:
            raise Reply(texts.t("settings.not_lobby", lang), alert=True)
        host_check(s, user)
        op = pressed.op
        if isinstance(op, SettingsDone):
            return settings_done(deps, s, user, lang, msg_id)
        if not isinstance(op, Panel):  # (the panel's buttons decode to these two: never so)
            raise Reply(texts.t("error.stale", lang))
        return panel_press(deps, s, user, lang, msg_id, op)

    plan = transact(deps, job, pressed.chat_id, decide)
    await finish(deps, job, plan)


def panel_press(deps: Deps, s: Session, user: User, lang: str, msg_id: int | None, op: Panel) -> Plan:
    """A page or an option of the panel: the settings change, the panel is drawn again. An option that
    needs a character not chosen is not switched on: an alert says which, and where to add it."""
    try:
        page, changed, language = settings_ops.apply(s.settings, op.op, len(s.players))
    except settings_panel.StaleOp:
        raise Reply(texts.t("error.stale", lang)) from None
    except settings_panel.NeedsCharacters as refused:
        raise Reply(needs_line(deps.table(s, lang), *refused.args), alert=True) from None
    if language is not None:
        s.speak(language)
        changed = True
        lang = lang_of(user, s)  # (a practice table's seat speaks it too: its panel then does)
    text, kb = redraw.settings_page(deps, s, page, lang)
    outs = [Out("edit", chat_id=user.id, message_id=msg_id, text=text, keyboard=kb, essential=False, tag="settings")]
    return Plan(session=s if changed else None, outs=outs)


def settings_done(deps: Deps, s: Session, user: User, lang: str, msg_id: int | None) -> Plan:
    """Done: the panel loses its buttons, the lobby shows the settings; said "saved" only when the
    table that will play can play them (else why not, in an alert)."""
    text, kb = redraw.lobby(deps, s)
    outs = []
    if msg_id:
        panel, _ = redraw.settings_page(deps, s, "main", lang)
        outs.append(Out("edit", chat_id=user.id, message_id=msg_id, text=panel, keyboard=None, tag="settings"))
    if s.lobby_msg:
        outs.append(Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=text, keyboard=kb, tag="lobby",
                        essential=False, view="lobby"))
    answer, alert = settings_check.done_answer(deps.table(s, lang), settings_check.check(s.settings, len(s.players)))
    return Plan(outs=outs, answer=answer, alert=alert)
