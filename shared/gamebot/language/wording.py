"""Wording that depends on the game in play: what a sentence may say is decided here, the words come
from the catalogs (``texts``).

* A character's side is said only when the character's name does not already say it ("Spy", "Lancelot
  (Evil)", "a Good Messenger"), and as "now Good" when the character changed sides (``side_note``).
* A character's name (``role.<id>``) is the bare name, as lists and labels show it ("Carol: Assassin",
  "Bob: Minion of Mordred"); a sentence ("You are ...", "... is ...", "Merlin sees ...") takes it with the
  article its language puts there (``role_a.<id>``: "the Assassin", "a Minion of Mordred"; else the name).
* A role's reminder follows the options in play (``rolehelp.<id>.<option>`` before ``rolehelp.<id>``).
* What a player learned says how they learned it (``learned.<source>``), never as if the player named
  were the Cleric or the Trapper.
* The quest-card prompt says who may see a played card in this game (Trapper, Excalibur, face-up
  cards, Ambush), and "nobody will see who played what" only when that is true.

Functions take the rendering ``Table`` (anything with ``t``, ``role``, ``side``, ``name``, ``names_of``,
``source``, ``lang`` and ``theme``: :class:`Words`) so that the messages room can call them without an import
cycle.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Protocol

from engine.models import Prompt
from engine.view_types import PublicView, Waiting
from gamebot.language import texts
from gamebot.language.markup import Html, escape

AMBUSH = "keeping_close_eye"  # the Plot card that looks at a played quest card
OPEN_VOTE = "opinion_maker"  # the Plot card whose holder votes first, in the open


class Words(Protocol):
    """What the wording asks of the rendering table (``gamebot.messages.table.Table``)."""

    lang: str
    theme: str

    def t(self, key: str, /, **params: object) -> Html: ...

    def role(self, role_id: str) -> Html: ...

    def side(self, side: str) -> Html: ...

    def source(self, source: str) -> Html: ...

    def name(self, seat: int | None) -> Html: ...

    def names_of(self, seats: Iterable[int]) -> Html: ...


def _says(name: str, word: str) -> bool:
    """Does ``name`` contain ``word`` as a whole word (case-insensitive)?"""
    return bool(word) and re.search(rf"(?<!\w){re.escape(word.casefold())}(?!\w)", name.casefold()) is not None


def home_side(role_id: str) -> str | None:
    """The side a character card belongs to (None for an id the engine does not know)."""
    from engine import ROLES

    role = ROLES.get(role_id)
    return role.side.value if role is not None else None


def name_says_side(table: Words, role_id: str, side: str) -> bool:
    """Does the character's name already tell ``side`` ("Spy", "Lancelot (Evil)", "a Good Messenger")?"""
    name = table.role(role_id)
    words = texts.vocab(table.lang, table.theme)
    member = words.get("servant" if side == "good" else "minion", "")
    stem = "Good" if side == "good" else "Evil"  # the language's own forms of the side too ("Гонец Добра")
    forms = [w for key, w in words.items() if key == stem or key.startswith(f"{stem}_")]
    return any(_says(name, word) for word in (table.side(side), member, *forms))


def side_note(table: Words, role_id: str, side: str) -> Html:
    """What to say of a character's side next to its name: nothing when the name says it, "now Good"
    when the character changed sides, else the side's name (markup)."""
    home = home_side(role_id)
    if home is not None and home != side and texts.has(f"side.now.{side}", table.lang):
        return table.t(f"side.now.{side}")
    if name_says_side(table, role_id, side):
        return Html("")
    return table.side(side)


def role_a(table: Words, role_id: str) -> Html:
    """The character's name as a sentence says it ("You are ...", "... is ..."): with its article ("a Spy",
    "the Assassin"), where the language puts one; else the bare name (Merlin)."""
    key = f"role_a.{role_id}"
    return table.t(key) if texts.has(key, table.lang) else table.role(role_id)


def role_help(table: Words, role_id: str, side: str, options: Mapping[str, object] | None = None) -> Html:
    """The reminder of a character's rules for the options in play: ``rolehelp.<id>.<option>`` when
    that option is on and the catalog has words for it, else ``rolehelp.<id>``, else a generic one."""
    for option, value in sorted((options or {}).items()):
        key = f"rolehelp.{role_id}.{option}"
        if value and texts.has(key, table.lang):
            return table.t(key)
    key = f"rolehelp.{role_id}"
    if texts.has(key, table.lang):
        return table.t(key)
    return table.t("rolehelp.good_generic" if side == "good" else "rolehelp.evil_generic")


def learned(table: Words, source: str) -> Html:
    """How a player learned something, said from their side ("you saw as the Cleric"); markup."""
    key = f"learned.{source}"
    if texts.has(key, table.lang):
        return table.t(key)
    plot = f"plot.{source.removeprefix('plot_')}"
    if texts.has(plot, table.lang):
        return table.t("learned.plot", card=table.t(plot))
    return table.t("learned.generic", source=table.source(source))


def join_or(table: Words, names: list[str]) -> Html:
    """``Merlin or the Good Messengers`` (markup: each name escaped unless it is markup already)."""
    if len(names) < 2:
        return Html("").join(names)
    return Html(", ").join(names[:-1]) + Html(" ") + table.t("or") + Html(" ") + escape(names[-1])


def _holders(pv: PublicView, card: str) -> list[int]:
    plot = pv.get("plot")
    hands = plot["hands"] if plot else []
    return [seat for seat, cards in enumerate(hands) if card in cards]


def play_notes(table: Words, pv: PublicView | None, seat: int) -> list[Html]:
    """Under the quest-card prompt: who may see a played card in this game. "Nobody will see who played
    what" only when nobody can."""
    if pv is None:
        return []
    lines = []
    plot = pv.get("plot")
    face_up = plot["face_up"] if plot else []
    if seat in face_up:
        lines.append(table.t("prompt.play.face_up_you"))
    if [s for s in face_up if s != seat]:
        lines.append(table.t("prompt.play.face_up", names=table.names_of([s for s in face_up if s != seat])))
    excalibur = pv.get("excalibur")
    holder = excalibur["holder"] if excalibur else None
    if holder is not None and holder in pv["team"]:
        if holder == seat:
            lines.append(table.t("prompt.play.excalibur_you"))
        else:
            lines.append(table.t("prompt.play.excalibur", holder=table.name(holder)))
    if pv["options"].get("trapper"):
        leader = pv["leader"]
        lines.append(table.t("prompt.play.trapper_you") if leader == seat
                     else table.t("prompt.play.trapper", leader=table.name(leader)))
    ambush = _holders(pv, AMBUSH)
    if ambush:
        card = table.t(f"plot.{AMBUSH}")
        if seat in ambush:
            lines.append(table.t("prompt.play.ambush_you", card=card))
        if [s for s in ambush if s != seat]:
            lines.append(table.t("prompt.play.ambush", card=card, names=table.names_of([s for s in ambush if s != seat])))
    return lines or [table.t("prompt.play.secret")]


def first_voters(table: Words, pv: PublicView) -> list[Html]:
    """The vote message while a Charge / Opinion Maker holder must vote first: who, and that it is open."""
    waiting = pv["waiting"]
    seats = waiting["seats"]
    if pv["stage"] == "vote" or waiting["kind"] != "vote" or waiting.get("hidden") or not seats:
        return []
    return [table.t("vote.first", names=table.names_of(seats), card=table.t(f"plot.{OPEN_VOTE}"))]


def closed_quests(pv: PublicView) -> list[int]:
    """Quest slots the engine says cannot be chosen yet (Targeting: the 5th before two successes)."""
    return [c["quest"] for c in pv["track"] if c.get("closed")]


def team_full(prompt: Prompt, quest: int | None, count: int, lang: str, theme: str) -> Html | None:
    """Why the Leader may not add one more player to ``count`` selected ones (None if they may): the
    team's size, with Targeting the chosen quest's, before a quest is chosen the largest offered."""
    sizes: dict[int, int] = {int(q): n for q, n in prompt.info.get("sizes", {}).items()}
    quests = prompt.quests
    if not quests:
        size = prompt.pick
    elif quest is None:
        size = max(sizes.get(q, 0) for q in quests)
        return texts.t("team.full_noquest", lang, theme, size=size) if count >= size else None
    else:
        size = sizes.get(quest, prompt.pick)
    return texts.t("team.full", lang, theme, size=size) if count >= size else None


def whose_turn(waiting: Waiting, names: list[str], kind: str, stage: str, lang: str,
               theme: str) -> Html | None:
    """The answer to a move made out of turn, naming whom the game waits for (markup: shown as plain text
    in an alert; ``names`` raw, escaped here),
    or None when that is secret. A vote before the others' (Charge / Opinion Maker): who votes first."""
    seats = [] if waiting.get("hidden") else waiting["seats"]
    if not seats:
        return None
    who = texts.join_names([names[s] for s in seats if 0 <= s < len(names)], lang)
    if kind == "vote" and waiting["kind"] == "vote" and stage != "vote":
        return texts.t("error.votes_first", lang, theme, who=who)
    return texts.t("error.not_your_turn", lang, theme, who=who)
