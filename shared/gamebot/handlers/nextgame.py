"""``/nextgame`` in a group: the bot tells you in private when the next lobby opens there, once (then
the subscription ends). The list is kept in the group's session (``Session.next_game``)."""
from __future__ import annotations

from .. import texts
from ..buttons import Join
from ..context import Deps, display_name, lang_of, own_lang
from ..handling import Job, finish, transact
from ..presenter.table import Btn, Table, esc
from ..session import LOBBY, Player, Session
from ..steps import Plan, Reply
from ..telegram_io import Out


async def cmd_nextgame(deps: Deps, job: Job, args: str) -> None:
    chat = job.update.effective_chat
    user = job.update.effective_user

    def decide(s: Session | None) -> Plan:
        lang = lang_of(user, s)
        if s is not None and s.status == LOBBY:
            raise Reply(texts.t("nextgame.lobby_open", lang))
        rec, _ = deps.load_user(user.id)
        if not rec.reachable:
            link = Table(chat_id=chat.id, game_id="", bot_username=deps.bot_username).link("nextgame")
            raise Reply(texts.t("nextgame.need_private", lang, link=link))
        if s is None:  # a group new to the bot: its first host still chooses its language ("": none yet)
            s = Session(chat_id=chat.id, title=chat.title or "", lang="")
        if any(p.id == user.id for p in s.next_game):
            raise Reply(texts.t("nextgame.already", lang))
        own = own_lang(user, rec)  # told in their own language ("" when we do not speak it: the group's)
        s.next_game.append(Player(id=user.id, name=display_name(user), lang=own))
        text = texts.t("nextgame.subscribed", own or lang, title=esc(s.title or chat.title or ""))
        return Plan(session=s, outs=[Out("send", chat_id=user.id, user_id=user.id, text=text, tag="nextgame",
                                         essential=False)])  # (in private: nothing more in the group)

    await finish(deps, job, transact(deps, job, chat.id, decide))


def lobby_opened(deps: Deps, previous: Session | None, lobby: Session) -> list[Out]:
    """The private notices of a lobby that just opened, to whoever asked with /nextgame (but its host):
    a Join button each. The subscriptions end with them (the new session does not keep them)."""
    outs = []
    for p in previous.next_game if previous is not None else []:
        if p.id == lobby.host and lobby.seat_of(p.id) is not None:
            continue
        table = deps.table(lobby, p.lang if texts.supported(p.lang) else lobby.lang)
        join = Join().encode(deps.codec, lobby.chat_id, lobby.game_id or "")
        outs.append(Out("send", chat_id=p.id, user_id=p.id, tag="nextgame", text=table.t(
            "nextgame.opened", title=esc(lobby.title)), keyboard=[[Btn(table.t("nextgame.join"), join)]]))
    return outs
