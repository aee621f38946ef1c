"""Languages: /language in a group chooses the group's (a picker, or a language named); in the bot's
private chat, the person's own, for everything sent to them in private in every group (``own_lang``)."""
from __future__ import annotations

from telegram import Chat, User

from engine import public_view
from gamebot.botapi.buttons import Language, Pressed
from gamebot.botapi.telegram_io import Btn, Out
from gamebot.compose import redraw
from gamebot.compose.context import Deps, lang_of, own_lang
from gamebot.handlers.handling import Job, finish, game_of, reply_lang, transact
from gamebot.language import texts
from gamebot.messages.board import board, board_keyboard
from gamebot.messages.table import esc
from gamebot.outbox.plan import Plan, Reply
from gamebot.storage.session import LOBBY, PLAYING, Session, UserRecord, user_key
from gamebot.storage.store import Item, Write


def language_names() -> str:
    return ", ".join(f"{texts.language_name(code)} ({code})" for code in texts.languages())


def language_picker(deps: Deps, chat_id: int, lang: str) -> tuple[str, list[list[Btn]]]:
    text = texts.t("language.title", lang, language=esc(texts.language_name(lang)))
    buttons = [
        Btn(("✅ " if code == lang else "") + texts.language_name(code), Language(code).encode(deps.codec, chat_id))
        for code in texts.languages()
    ]
    return text, [buttons[i : i + 3] for i in range(0, len(buttons), 3)]


async def cmd_language(deps: Deps, job: Job, args: str) -> None:
    chat = job.chat
    user = job.user
    wanted = args.strip().lower()
    if chat.type == "private":
        await own_language(deps, job, user, wanted)
        return
    session, _ = deps.load(chat.id)
    lang = reply_lang(job, session)
    if not wanted:
        text, kb = language_picker(deps, chat.id, session.lang if session else lang)
        await finish(deps, job, Plan(outs=[Out("send", chat_id=chat.id, text=text, keyboard=kb, tag="language")]))
        return
    code = next((c for c in texts.languages() if wanted in (c, texts.language_name(c).lower())), None)
    if code is None:
        text = texts.t("language.unknown", lang, code=esc(wanted[:16]), languages=esc(language_names()))
        await finish(deps, job, Plan(answer=text))
        return
    await set_language(deps, job, chat, user, code, None, chat_id=chat.id)


async def on_button(deps: Deps, job: Job, pressed: Pressed) -> None:
    q = job.query
    op = pressed.op
    private = pressed.chat_id == q.from_user.id  # the picker of the presser's own language ("": follow)
    if not isinstance(op, Language) or not (texts.supported(op.lang) or private and op.lang == ""):
        await finish(deps, job, Plan(answer=texts.t("error.stale", lang_of(q.from_user))))
        return
    if private:
        await set_own_language(deps, job, q.from_user, op.lang, q.message.message_id if q.message else None)
        return
    await set_language(deps, job, q.message.chat if q.message else None, q.from_user, op.lang,
                       q.message.message_id if q.message else None, chat_id=pressed.chat_id)


async def set_language(deps: Deps, job: Job, chat: Chat | None, user: User, code: str, picker_msg: int | None,
                       chat_id: int) -> None:
    """The group's language becomes ``code``. While a lobby or game is open only its host or a group
    admin may change it; otherwise anyone in the group may."""
    session, _ = deps.load(chat_id)
    admin = False
    if session is not None and session.active and user.id != session.host:
        admin = await deps.io.is_admin(chat_id, user.id)
        if not admin:
            await finish(deps, job, Plan(answer=texts.t("language.not_allowed", reply_lang(job, session)), alert=True))
            return

    def decide(s: Session | None) -> Plan:
        if s is None:
            s = Session(chat_id=chat_id, title=getattr(chat, "title", None) or "")
        elif s.active and user.id != s.host and not admin:  # a lobby opened meanwhile
            raise Reply(texts.t("language.not_allowed", s.lang), alert=True)
        s.speak(code)
        plan = Plan(session=s)
        done = texts.t("language.changed", code, language=esc(texts.language_name(code)))
        if picker_msg:
            plan.outs.append(Out("edit", chat_id=chat_id, message_id=picker_msg, text=done, keyboard=None,
                                 tag="language"))
            plan.answer = done
        else:
            plan.outs.append(Out("send", chat_id=chat_id, text=done, tag="language"))
        plan.outs += redrawn(deps, s)
        return plan

    plan = transact(deps, job, chat_id, decide)
    await finish(deps, job, plan)


def redrawn(deps: Deps, s: Session) -> list[Out]:
    """The table's lobby or board again, in its language now."""
    if s.status == LOBBY and s.lobby_msg:
        text, kb = redraw.lobby(deps, s)
        return [Out("edit", chat_id=s.chat_id, message_id=s.lobby_msg, text=text, keyboard=kb, tag="lobby",
                    view="lobby")]
    if s.status == PLAYING and s.board_msg:
        return [Out("edit", chat_id=s.chat_id, message_id=s.board_msg, tag="board", view="board",
                    text=board(deps.table(s), public_view(game_of(s))),
                    keyboard=board_keyboard(deps.table(s), deps.codec))]
    return []


# --- a person's own language (the bot's private chat) ------------------------------------------------


def own_picker(deps: Deps, user_id: int, chosen: str, lang: str) -> tuple[str, list[list[Btn]]]:
    """Every catalog language, and "follow my Telegram app, else the group" ("" chosen)."""
    current = texts.language_name(chosen) if chosen else texts.t("language.own_auto", lang)
    text = texts.t("language.own_title", lang, language=esc(current))
    buttons = [
        Btn(("✅ " if code == chosen else "") + texts.language_name(code), Language(code).encode(deps.codec, user_id))
        for code in texts.languages()
    ]
    rows = [buttons[i : i + 3] for i in range(0, len(buttons), 3)]
    auto = ("✅ " if not chosen else "") + texts.t("language.button_auto", lang)
    return text, [*rows, [Btn(auto, Language("").encode(deps.codec, user_id))]]


async def own_language(deps: Deps, job: Job, user: User, wanted: str) -> None:
    """``/language`` in private: the picker, or the language named set at once."""
    rec, _ = deps.load_user(user.id)
    chosen = rec.chosen_lang if texts.supported(rec.chosen_lang) else ""
    group = deps.load(rec.chat)[0] if rec.chat is not None else None
    lang = own_lang(user, rec) or lang_of(user, group)
    if not wanted:
        text, kb = own_picker(deps, user.id, chosen, lang)
        await finish(deps, job, Plan(outs=[Out("send", chat_id=user.id, user_id=user.id, text=text, keyboard=kb,
                                               tag="language")]))
        return
    code = next((c for c in texts.languages() if wanted in (c, texts.language_name(c).lower())), None)
    if code is None:
        text = texts.t("language.unknown", lang, code=esc(wanted[:16]), languages=esc(language_names()))
        await finish(deps, job, Plan(answer=text))
        return
    await set_own_language(deps, job, user, code, None)


async def set_own_language(deps: Deps, job: Job, user: User, code: str, picker_msg: int | None) -> None:
    """``user``'s own language becomes ``code`` ("": their app's, else the group's), kept in their record;
    a seat they hold in a lobby or a game speaks it from its next private message on (the seat and the
    record in one write, with the update id: a redelivery is applied once)."""
    rec, _ = deps.load_user(user.id)

    def said(fresh: UserRecord, s: Session | None) -> Plan:
        lang = own_lang(user, fresh) or lang_of(user, s)
        done = (texts.t("language.own_changed", lang, language=esc(texts.language_name(code))) if code
                else texts.t("language.own_auto_changed", lang))
        if picker_msg is None:
            return Plan(answer=done)
        return Plan(answer=done, outs=[Out("edit", chat_id=user.id, message_id=picker_msg, text=done,
                                                  keyboard=None, tag="language")])

    if rec.chat is None:  # in no group's game: the record alone
        fresh = deps.mark_user(user.id, job.update_id, chosen_lang=code)
        await finish(deps, job, Plan() if fresh is None else said(fresh, None))
        return

    def decide(s: Session | None) -> Plan:
        fresh, version = deps.load_user(user.id)
        if job.update_id is not None and job.update_id in fresh.seen:
            return Plan()  # applied before (the record says so)
        fresh = fresh.model_copy(update={"chosen_lang": code})
        if job.update_id is not None:
            fresh.mark_seen(job.update_id)
        seat = s.seat_of(user.id) if s is not None and s.active else None
        if s is not None and seat is not None:
            s.players[seat].lang = own_lang(user, fresh)
        plan = said(fresh, s)
        plan.session = s if seat is not None else None
        if s is not None and seat is not None and s.practice:  # its table is this chat: one language
            s.speak(s.players[seat].lang or s.lang)
            plan.outs += redrawn(deps, s)
        plan.writes.append(Write(Item(key=user_key(user.id), body=fresh.body()), version))
        return plan

    await finish(deps, job, transact(deps, job, rec.chat, decide))
