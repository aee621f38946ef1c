"""Typed buttons: each button operation is a small frozen dataclass that encodes itself into
``callback_data`` and is decoded back here, on top of ``gamebot.botapi.callbacks`` (its envelope
``scope:chat:game:serial:op:mac`` and signature are unchanged, so the bytes on the wire stay the same).

``decode`` returns a :class:`Pressed`: the envelope and the operation, or ``op=None`` when the scope is
known but the operation is not (answered as out of date by the scope's handler).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from gamebot.botapi.callbacks import Codec
from gamebot.storage.session import kind_tag

VOTE_TAG = kind_tag("vote")


def _number(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() else None


class Op(ABC):
    """One button operation; ``scope`` names its handler (``gamebot.botapi.callbacks``)."""

    scope: ClassVar[str]

    @abstractmethod
    def code(self) -> str:
        """The operation's part of ``callback_data``."""

    def encode(self, codec: Codec, chat_id: int, game_id: str = "", serial: int = 0) -> str:
        return codec.encode(self.scope, chat_id, game_id, serial, self.code())


# --- the lobby (group) -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Join(Op):
    scope: ClassVar[str] = "L"

    def code(self) -> str:
        return "j"


@dataclass(frozen=True)
class Leave(Op):
    scope: ClassVar[str] = "L"

    def code(self) -> str:
        return "l"


@dataclass(frozen=True)
class OpenSettings(Op):
    scope: ClassVar[str] = "L"

    def code(self) -> str:
        return "s"


@dataclass(frozen=True)
class StartGame(Op):
    scope: ClassVar[str] = "L"

    def code(self) -> str:
        return "g"


@dataclass(frozen=True)
class PlayAgain(Op):
    """The game-over message's "Play again": a lobby with the same settings (or join the one it opened)."""

    scope: ClassVar[str] = "L"

    def code(self) -> str:
        return "r"


@dataclass(frozen=True)
class AddAiSeat(Op):
    """The host adds an AI seat (``gamebot.handlers.ai_seats``); its wire code ``b`` is kept."""

    scope: ClassVar[str] = "L"

    def code(self) -> str:
        return "b"


@dataclass(frozen=True)
class RemoveAiSeat(Op):
    """The host takes the last AI seat away; its wire code ``u`` is kept."""

    scope: ClassVar[str] = "L"

    def code(self) -> str:
        return "u"


LOBBY_OPS: dict[str, Op] = {op.code(): op for op in (Join(), Leave(), OpenSettings(), StartGame(), PlayAgain(),
                                                     AddAiSeat(), RemoveAiSeat())}


# --- the settings panel (host, private) ----------------------------------------------------------------


@dataclass(frozen=True)
class SettingsDone(Op):
    scope: ClassVar[str] = "S"

    def code(self) -> str:
        return "d"


@dataclass(frozen=True)
class Panel(Op):
    """A page or an option of the panel: ``op`` is the panel's own code (``settings_panel.apply``)."""

    op: str
    scope: ClassVar[str] = "S"

    def code(self) -> str:
        return self.op


# --- the team picker (the Leader, private) ----------------------------------------------------------------


@dataclass(frozen=True)
class TeamSeat(Op):
    seat: int
    scope: ClassVar[str] = "T"

    def code(self) -> str:
        return f"t{self.seat}"


@dataclass(frozen=True)
class TeamQuest(Op):
    quest: int
    scope: ClassVar[str] = "T"

    def code(self) -> str:
        return f"q{self.quest}"


@dataclass(frozen=True)
class TeamConfirm(Op):
    scope: ClassVar[str] = "T"

    def code(self) -> str:
        return "c"


# --- the vote and the quest cards (group) --------------------------------------------------------------


@dataclass(frozen=True)
class Vote(Op):
    approve: bool
    scope: ClassVar[str] = "V"

    def code(self) -> str:
        return VOTE_TAG + ("a" if self.approve else "r")


@dataclass(frozen=True)
class Card(Op):
    """A quest card, by its place in the public view's ``table_cards``."""

    index: int
    scope: ClassVar[str] = "Q"

    def code(self) -> str:
        return str(self.index)


# --- private prompts: every operation names its prompt's kind (``session.kind_tag``) ---------------------


@dataclass(frozen=True)
class PromptPass(Op):
    tag: str
    scope: ClassVar[str] = "P"

    def code(self) -> str:
        return self.tag + "p"


@dataclass(frozen=True)
class PromptTarget(Op):
    tag: str
    seat: int
    scope: ClassVar[str] = "P"

    def code(self) -> str:
        return f"{self.tag}t{self.seat}"


@dataclass(frozen=True)
class PromptChoice(Op):
    tag: str
    index: int
    scope: ClassVar[str] = "P"

    def code(self) -> str:
        return f"{self.tag}x{self.index}"


@dataclass(frozen=True)
class PromptQuest(Op):
    tag: str
    quest: int
    scope: ClassVar[str] = "P"

    def code(self) -> str:
        return f"{self.tag}q{self.quest}"


@dataclass(frozen=True)
class PromptConfirm(Op):
    tag: str
    scope: ClassVar[str] = "P"

    def code(self) -> str:
        return self.tag + "c"


@dataclass(frozen=True)
class PromptUnknown(Op):
    """A prompt's kind with an operation this version does not know (answered as out of date)."""

    tag: str
    rest: str
    scope: ClassVar[str] = "P"

    def code(self) -> str:
        return self.tag + self.rest


# --- group settings ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Language(Op):
    lang: str
    scope: ClassVar[str] = "G"

    def code(self) -> str:
        return "l" + self.lang


# --- the vote history (the board's button) -------------------------------------------------------------


@dataclass(frozen=True)
class VoteHistory(Op):
    scope: ClassVar[str] = "H"

    def code(self) -> str:
        return "h"


# --- decoding -------------------------------------------------------------------------------------------


def _team(code: str) -> Op | None:
    if code == "c":
        return TeamConfirm()
    n = _number(code[1:])
    if n is None:
        return None
    return TeamSeat(n) if code[:1] == "t" else TeamQuest(n) if code[:1] == "q" else None


def _vote(code: str) -> Op | None:
    if code[:2] != VOTE_TAG or code[2:] not in ("a", "r"):
        return None
    return Vote(code[2:] == "a")


def _card(code: str) -> Op | None:
    n = _number(code)
    return Card(n) if n is not None else None


_PROMPT_NUMBERED: dict[str, Callable[[str, int], Op]] = {"t": PromptTarget, "x": PromptChoice, "q": PromptQuest}


def _prompt(code: str) -> Op:
    tag, rest = code[:2], code[2:]
    if rest == "p":
        return PromptPass(tag)
    if rest == "c":
        return PromptConfirm(tag)
    make = _PROMPT_NUMBERED.get(rest[:1])
    n = _number(rest[1:]) if make is not None else None
    return make(tag, n) if make is not None and n is not None else PromptUnknown(tag, rest)


def _language(code: str) -> Op | None:
    return Language(code[1:]) if code.startswith("l") else None


PARSERS: dict[str, Callable[[str], Op | None]] = {
    "L": LOBBY_OPS.get,
    "S": lambda code: SettingsDone() if code == "d" else Panel(code),
    "T": _team,
    "V": _vote,
    "Q": _card,
    "P": _prompt,
    "G": _language,
    "H": lambda code: VoteHistory() if code == "h" else None,
}


@dataclass(frozen=True)
class Pressed:
    """A decoded button: where it belongs and its operation (None: not one this scope knows)."""

    scope: str
    chat_id: int
    game_id: str
    serial: int
    op: Op | None


def decode(codec: Codec, data: str | None) -> Pressed:
    """The button behind ``data``; raises ``callbacks.BadCallback`` for forged or malformed data."""
    b = codec.decode(data)
    return Pressed(b.scope, b.chat_id, b.game_id, b.serial, PARSERS[b.scope](b.op))
