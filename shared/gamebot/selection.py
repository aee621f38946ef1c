"""Selections built with toggle buttons (the Leader's team picker, a private prompt in select mode such
as the Plot card deal): each toggle is answered by a toast naming the selection so far, and the message
is edited only when it must change: when the selection becomes complete (the chosen players marked, the
confirm button ready) or stops being complete. A player remembers what they tapped in between."""
from __future__ import annotations

from typing import Any

from . import texts


def team_complete(prompt: dict[str, Any], sel: Any) -> bool:
    """The Leader's selection is a whole team (for the chosen quest, with Targeting)."""
    if sel is None:
        return False
    if prompt.get("quests"):
        sizes = {int(q): int(n) for q, n in (prompt.get("info") or {}).get("sizes", {}).items()}
        return sel.quest is not None and len(sel.targets) == sizes.get(sel.quest, prompt.get("pick") or 0)
    return len(sel.targets) == int(prompt.get("pick") or 0)


def prompt_complete(prompt: dict[str, Any], sel: Any) -> bool:
    """A select-mode prompt's selection may be confirmed: its players picked, a choice made (when there is
    more than one), a quest chosen."""
    if sel is None:
        return False
    pick = int(prompt.get("pick") or 0)
    if pick and len(sel.targets) != pick:
        return False
    if len(prompt.get("choices") or []) > 1 and sel.choice is None:
        return False
    return not (prompt.get("quests") and sel.quest is None)


def must_redraw(complete: Any, before: Any, after: Any) -> bool:
    """Edit the message for this toggle? Only when completeness changes, or while complete the selection
    changed (then the marks on screen must show it)."""
    was, now = complete(before), complete(after)
    if was != now:
        return True
    return now and (before.targets, before.choice, before.quest) != (after.targets, after.choice, after.quest)


def toast(names: list[str], extra: list[str], lang: str, theme: str) -> str:
    """``Selected: Bob, Carol · 🃏 Charge`` (plain text, for the answer to a press)."""
    parts = [", ".join(names)] if names else []
    parts += [p for p in extra if p]
    if not parts:
        return texts.t("team.selected_none", lang, theme)
    return texts.t("team.selected", lang, theme, names=" · ".join(parts))
