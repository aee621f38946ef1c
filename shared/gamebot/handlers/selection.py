"""Selections built with toggle buttons (the Leader's team picker, a private prompt in select mode such
as the Plot card deal).

Every toggle draws the message again at once, so that the screen is the selection the next tap changes:
✅ on each chosen player, 🔘 on the chosen card or option, 🎯 on the chosen quest, "Selected: ..." in
the text and the count on the confirm button (``messages.vote.team_picker``,
``messages.prompts.private_prompt``); the toast that answers the tap (:func:`toast`) repeats it. The
redraw is an edit of a message in the player's private chat: it costs the group's budget nothing. It is
progress (never stored): what Telegram's flood control refuses for longer than is worth waiting is held
back in the outbox and goes out once allowed, and the next toggle's edit joins it there and replaces it,
so that fast taps end with the latest selection on screen (``gamebot.outbox.uow``, ``gamebot.storage.effects``).

A confirm pressed before the selection is whole is answered with what is missing (:func:`team_missing`,
:func:`prompt_missing`) before the engine is asked.
"""
from __future__ import annotations

from engine import Prompt
from gamebot.language import texts
from gamebot.language.markup import Html
from gamebot.storage.session import Selection


def toast(names: list[str], extra: list[str], lang: str, theme: str) -> Html:
    """``Selected: Bob, Carol · 🃏 Charge`` (for the answer to a press: its plain text; ``names`` raw)."""
    parts: list[str] = [Html(", ").join(names)] if names else []  # (``join`` escapes the plain ones)
    parts += [p for p in extra if p]
    if not parts:
        return texts.t("team.selected_none", lang, theme)
    return texts.t("team.selected", lang, theme, names=Html(" · ").join(parts))


def _players(wanted: int, chosen: int, lang: str, theme: str) -> Html | None:
    """What is missing among the players: none, one to choose, or how many of how many."""
    if chosen == wanted:
        return None
    if wanted == 1 and chosen == 0:
        return texts.t("select.need_player", lang, theme)
    return texts.t("select.need_players", lang, theme, size=wanted, count=chosen)


def team_missing(prompt: Prompt, sel: Selection | None, lang: str, theme: str) -> Html | None:
    """Why the Leader's selection cannot be proposed yet (None: it is a whole team): the quest to choose
    first (Targeting), else how many players the team needs and how many are chosen."""
    quest = sel.quest if sel is not None else None
    chosen = len(sel.targets) if sel is not None else 0
    if prompt.quests:
        if quest is None:
            return texts.t("team.choose_quest_first", lang, theme)
        sizes = {int(q): int(n) for q, n in prompt.info.get("sizes", {}).items()}
        return _players(sizes.get(quest, prompt.pick), chosen, lang, theme)
    return _players(prompt.pick, chosen, lang, theme)


def _cards(choices: list[str], lang: str) -> bool:
    """The choices are cards (quest cards, Plot cards): "choose a card"."""
    return all(texts.has(f"card.{c}", lang) or texts.has(f"plot.{c.removeprefix('plot_')}", lang) for c in choices)


def prompt_missing(prompt: Prompt, sel: Selection | None, lang: str, theme: str) -> Html | None:
    """Why a select-mode prompt's selection cannot be confirmed yet (None: it can): each thing still to
    choose, one a line (the card or option when there is more than one, the quest, the players)."""
    choices = list(prompt.choices)
    lines = []
    if len(choices) > 1 and (sel is None or sel.choice is None):
        lines.append(texts.t("select.need_card" if _cards(choices, lang) else "select.need_choice", lang, theme))
    if prompt.quests and (sel is None or sel.quest is None):
        lines.append(texts.t("team.choose_quest_first", lang, theme))
    pick = prompt.pick
    if pick:
        players = _players(pick, len(sel.targets) if sel is not None else 0, lang, theme)
        if players:
            lines.append(players)
    return Html("\n").join(lines) or None
