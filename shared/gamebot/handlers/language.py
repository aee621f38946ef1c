"""The group's language: /language (a picker, or a language named), its picker's buttons."""
from __future__ import annotations

from typing import Any

from engine import public_view

from .. import texts
from ..buttons import Language, Pressed
from ..context import Deps, lang_of
from ..handling import Job, finish, reply_lang, transact
from ..outgoing import views
from ..presenter.board import board, board_keyboard
from ..presenter.table import Btn, esc
from ..session import LOBBY, PLAYING, Session
from ..steps import Plan, Reply
from ..telegram_io import Out


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
    chat = job.update.effective_chat
    user = job.update.effective_user
    if chat.type == "private":
        text = texts.t("language.private", lang_of(user), languages=esc(language_names()))
        await finish(deps, job, Plan(answer=text))
        return
    session, _ = deps.load(chat.id)
    lang = reply_lang(job, session)
    wanted = args.strip().lower()
    if not wanted:
        text, kb = language_picker(deps, chat.id, session.lang if session else lang)
        await finish(deps, job, Plan(outs=[Out("send", chat_id=chat.id, text=text, keyboard=kb, tag="language")]))
        return
    code = next((c for c in texts.languages() if wanted in (c, texts.language_name(c).lower())), None)
    if code is None:
        text = texts.t("language.unknown", lang, code=esc(wanted[:16]), languages=esc(language_names()))
        await finish(deps, job, Plan(answer=text))
        return
    await set_language(deps, job, chat, user, code, None)


async def on_button(deps: Deps, job: Job, pressed: Pressed) -> None:
    q = job.update.callback_query
    op = pressed.op
    if not isinstance(op, Language) or not texts.supported(op.lang):
        await finish(deps, job, Plan(answer=texts.t("error.stale", lang_of(q.from_user))))
        return
    await set_language(deps, job, q.message.chat if q.message else None, q.from_user, op.lang,
                       q.message.message_id if q.message else None, chat_id=pressed.chat_id)


async def set_language(deps: Deps, job: Job, chat: Any, user: Any, code: str, picker_msg: int | None,
                       chat_id: int | None = None) -> None:
    """The group's language becomes ``code``. While a lobby or game is open only its host or a group
    admin may change it; otherwise anyone in the group may."""
    chat_id = chat_id if chat_id is not None else chat.id
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
        s.lang = code
        plan = Plan(session=s)
        done = texts.t("language.changed", code, language=esc(texts.language_name(code)))
        if picker_msg:
            plan.outs.append(Out("edit", chat_id=chat_id, message_id=picker_msg, text=done, keyboard=None,
                                 tag="language"))
            plan.answer = done[:200]
        else:
            plan.outs.append(Out("send", chat_id=chat_id, text=done, tag="language"))
        if s.status == LOBBY and s.lobby_msg:
            text, kb = views.lobby(deps, s)
            plan.outs.append(Out("edit", chat_id=chat_id, message_id=s.lobby_msg, text=text, keyboard=kb,
                                 tag="lobby", view="lobby"))
        elif s.status == PLAYING and s.board_msg:
            plan.outs.append(Out("edit", chat_id=chat_id, message_id=s.board_msg, tag="board", view="board",
                                 text=board(deps.table(s), public_view(s.game())),
                                 keyboard=board_keyboard(deps.table(s), deps.codec)))
        return plan

    plan = transact(deps, job, chat_id, decide)
    await finish(deps, job, plan)
