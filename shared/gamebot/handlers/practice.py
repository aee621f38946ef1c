"""/practice: a game of one person and 4 to 9 AI seats (``gamebot.handlers.ai_seats``), in the
person's private chat with the bot. That chat is the table: its session is keyed by the private chat's
id (the user's own, never a group's), so the messages a group would get (the lobby, the board, the
votes and quest cards, the end and its picture) arrive there, next to the person's own prompts, in
their language. The lobby has the settings panel and the 🤖 buttons; its role card says it is practice,
and nothing of it counts (no statistics, no rating, no idle record, no /nextgame notice).
"""
from __future__ import annotations

from gamebot.compose.context import MAX_PLAYERS, Deps, display_name, lang_of, own_lang
from gamebot.handlers import lobby
from gamebot.handlers.handling import Job, finish, transact
from gamebot.handlers.settings import lobby_settings
from gamebot.language import texts
from gamebot.language.markup import plain, shorten
from gamebot.messages.table import esc
from gamebot.outbox.plan import Plan, Reply
from gamebot.storage.seats import MAX_AI_SEATS
from gamebot.storage.session import Session

MIN_AI_SEATS, DEFAULT_AI_SEATS = 4, 4


def ai_seat_count(args: str) -> int | None:
    """How many AI seats ``/practice [N] [game]`` asks for (None: a number out of ``MIN_AI_SEATS``..``MAX_AI_SEATS``)."""
    numbers = [w for w in args.split() if w.isascii() and w.isdigit()]
    if not numbers:
        return DEFAULT_AI_SEATS
    n = int(numbers[0])
    return n if MIN_AI_SEATS <= n <= min(MAX_AI_SEATS, MAX_PLAYERS - 1) else None


async def cmd_practice(deps: Deps, job: Job, args: str) -> None:
    chat = job.chat
    user = job.user
    if chat.type != "private":
        await finish(deps, job, Plan(answer=texts.t("practice.private_only", lang_of(user))))
        return
    rec, _ = deps.load_user(user.id)
    lang = own_lang(user, rec) or lang_of(user)
    count = ai_seat_count(args)
    if count is None:
        await finish(deps, job, Plan(answer=texts.t("practice.count", lang, min=MIN_AI_SEATS, max=MAX_AI_SEATS)))
        return
    elsewhere = deps.active_elsewhere(rec, chat.id)
    if elsewhere is not None:
        await finish(deps, job, Plan(answer=texts.t("practice.in_other_game", lang,
                                                    title=esc(elsewhere.title or "?"))))
        return
    if not rec.reachable:  # the person wrote to the bot: it can reach them (as /start records)
        deps.mark_user(user.id, started=True, blocked=False, name=display_name(user))
    words = " ".join(w for w in args.split() if not w.isdigit())

    def decide(s: Session | None) -> Plan:
        if s is not None and s.active:
            raise Reply(texts.t("practice.exists", lang))
        title = shorten(plain(texts.t("practice.title", lang)), 128)
        return lobby.open_lobby(deps, s, chat.id, title, user, lobby_settings(s.settings if s else None, words),
                                ai_seat_count=count, practice=True)

    plan = transact(deps, job, chat.id, decide)
    await finish(deps, job, plan)
