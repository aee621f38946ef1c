"""The vote history of the game in progress (the board's button, ``/votes``): every proposal with its
Leader, team and votes, every quest's result, and what the plug-ins record in public (the Lady of the
Lake's checks, Excalibur, Plot cards), drawn like the end's picture (``gamebot.story.picture``) or told like
the end's text history (``gamebot.story.end_text``). What is still going on is told as going on, never as a
result: an open vote shows who has voted so far (never how), a quest under way how many cards are in
(``by_round.Turn.open``, ``by_round.Round.underway``).

Everything comes from ``engine.public_view`` of the state: :func:`story` is the only input of both the
picture and the text, so nothing secret can reach them (tests: a state whose secrets are scrambled gives
the same story, the same text and the same PNG).
"""
from __future__ import annotations

import logging
from typing import Any

from engine import GameState, public_view
from gamebot.botapi.telegram_io import Out
from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.messages.table import NL, Table, split
from gamebot.story import end_text

log = logging.getLogger("gamebot.core.service")

WAIT_SECONDS = 60  # a person may ask for the history once a minute


def story(state: GameState, names: list[str], game_id: str) -> dict[str, Any]:
    """The history's data, shaped like ``Session.last`` (what the picture reads): the public view only."""
    return {"game_id": game_id, "names": list(names), "status": "playing", "view": public_view(state)}


def text(table: Table, data: dict[str, Any]) -> list[Html]:
    """The history as messages (the text fallback)."""
    pv = data["view"]
    head = table.t("votes.title", game=table.t(f"theme.{table.theme}"), round=pv.get("round") or 1)
    lines = end_text.history(table, pv)
    if len(lines) <= 1:  # only the heading: nothing has happened yet
        lines.append(table.t("votes.nothing_yet"))
    return split(NL.join([head, *lines[1:]]))


def picture(data: dict[str, Any], lang: str) -> bytes | None:
    """The history as a PNG, or None if it cannot be drawn (the text says the same)."""
    try:
        from gamebot.story.picture import (
            render_png,  # (Pillow: only when a picture is drawn, not at cold start)
        )

        return render_png(data, lang, status="playing")
    except Exception:
        log.exception("could not draw the vote history of game %s", data.get("game_id"))
        return None


def outs(table: Table, data: dict[str, Any], user_id: int, drawn: bool = True) -> list[Out]:
    """What ``user_id`` is sent privately: the picture with a caption, or the text (``drawn`` False, or
    no picture)."""
    png = picture(data, table.lang) if drawn else None
    if png is not None:
        pv = data["view"]
        caption = table.t("votes.caption", game=table.t(f"theme.{table.theme}"), round=pv.get("round") or 1)
        return [Out("photo", chat_id=user_id, user_id=user_id, photo=png, text=caption, essential=False, tag="votes")]
    return [Out("send", chat_id=user_id, user_id=user_id, text=part, essential=False, tag="votes")
            for part in text(table, data)]


def wait_text(lang: str, seconds: float) -> Html:
    return texts.t("votes.too_soon", lang, seconds=max(1, int(seconds + 0.999)))
