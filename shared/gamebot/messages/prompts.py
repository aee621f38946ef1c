"""Engine prompts as private messages with buttons, and the message once answered.
"""
from __future__ import annotations

from typing import Any

from engine.view_types import PublicView
from gamebot.botapi.buttons import Op, PromptChoice, PromptConfirm, PromptPass, PromptQuest, PromptTarget
from gamebot.botapi.callbacks import Codec
from gamebot.botapi.telegram_io import Btn, Keyboard
from gamebot.language import texts, wording
from gamebot.language.markup import Html, cap, require_text, shorten
from gamebot.messages.table import NL, Table, esc
from gamebot.messages.time_limits import prompt_lines
from gamebot.messages.values import prompt_params
from gamebot.storage.session import kind_tag


def prompt_mode(prompt: dict[str, Any]) -> str:
    """``immediate`` (one press answers) or ``select`` (toggle, then Confirm)."""
    dims = int(bool(prompt.get("pick"))) + int(bool(prompt.get("choices"))) + int(bool(prompt.get("quests")))
    if dims == 0:
        return "immediate"
    if dims == 1 and (prompt.get("pick") in (0, 1)):
        return "immediate"
    return "select"


def choice_label(table: Table, choice: str, kind: str) -> Html:
    if kind == "play" or texts.has(f"card.{choice}", table.lang):
        return table.card(choice)
    return texts.name_of("choice", choice, table.lang, table.theme)


PROMPT_VARIANT_KEYS = ("target", "source")


def private_prompt(
    table: Table,
    prompt: dict[str, Any],
    codec: Codec,
    serial: int,
    sel: dict[str, Any] | None = None,
    pv: PublicView | None = None,
) -> tuple[Html, Keyboard]:
    """Any engine prompt as a private message with buttons, built from its fields. In select mode, ``sel``
    (the selection so far) is marked on the buttons (✅ a player, 🔘 the card or option, 🎯 the quest),
    said in the text ("Selected: ...") and counted on Confirm."""
    sel = sel or {}
    lines = _prompt_lines(table, prompt, pv)
    rows = _prompt_buttons(table, prompt, codec, serial, sel)
    if prompt_mode(prompt) == "select":  # what is selected so far, in words (the marks say it on the buttons)
        lines += _selected(table, prompt["kind"], sel)
    return NL.join([*lines, *prompt_lines(table)]), rows


def _prompt_lines(table: Table, prompt: dict[str, Any], pv: PublicView | None) -> list[Html]:
    """What the prompt asks, in words: its own sentence if the prompt fills its blanks (a variant named by
    its target or source: the Assassin looking for both Messengers, the Cleric's look at the Reveal), else
    a generic one with the prompt's fields; then how many to pick, a quest to pick, whether one may pass."""
    kind = prompt["kind"]
    info = dict(prompt.get("info") or {})
    p = prompt_params(table, kind, info)
    if "quest" not in p and pv is not None and (quest := pv.get("quest")) is not None:
        p["quest"] = quest + 1
    if kind == "vote" and pv is not None:
        p.setdefault("team", table.names_of(pv.get("team") or []))
    candidates = [f"prompt.{kind}.{info[k]}" for k in PROMPT_VARIANT_KEYS if isinstance(info.get(k), str)]
    candidates.append(f"prompt.{kind}")
    key = next((c for c in candidates if texts.has(c, table.lang)
                and texts.fields(c, table.lang, table.theme) <= set(p)), candidates[-1])
    known = texts.has(key, table.lang) and texts.fields(key, table.lang, table.theme) <= set(p)
    if known:  # the prompt's own sentence says what to choose
        lines = [table.t(key, **p)]
        if kind == "play":
            lines.extend(wording.play_notes(table, pv, int(prompt.get("seat") or 0)))
    else:
        lines = [table.t("prompt.generic", what=esc(table.kind(kind)))]
        lines += [table.t("prompt.info_line", name=esc(cap(table.field(k))), value=v)
                  for k, v in p.items() if k not in ("kind",) and v not in ("", None)]
    pick = int(prompt.get("pick") or 0)
    if pick and not known:
        lines.append(table.t("prompt.pick_one") if pick == 1 else table.t("prompt.pick", count=pick))
    if prompt.get("quests"):
        lines.append(table.t("prompt.pick_quest"))
    if prompt.get("choices") and not known:
        lines.append(table.t("prompt.choose"))
    if prompt.get("optional"):
        lines.append(table.t("prompt.may_pass"))
    return lines


def _prompt_buttons(table: Table, prompt: dict[str, Any], codec: Codec, serial: int,
                    sel: dict[str, Any]) -> Keyboard:
    """The quests (three a row), the players and the choices (two a row), Confirm in select mode, Pass."""
    kind, tag, pick = prompt["kind"], kind_tag(prompt["kind"]), int(prompt.get("pick") or 0)
    chosen = list(sel.get("targets") or [])
    select = prompt_mode(prompt) == "select"

    def data(op: Op) -> str:
        return op.encode(codec, table.chat_id, table.game_id, serial)

    def mark(s: int) -> str:
        return ("✅ " if s in chosen else "▫️ ") if select else ""

    rows: Keyboard = []
    quests = [Btn(("🎯 " if sel.get("quest") == q else "") + table.t("team.button.quest", quest=q + 1, size="·"),
                  data(PromptQuest(tag, q))) for q in prompt.get("quests") or []]
    rows.extend(quests[i : i + 3] for i in range(0, len(quests), 3))
    if pick:
        buttons = [Btn(mark(s) + shorten(table.names[s], 24), data(PromptTarget(tag, s))) for s in prompt.get("targets") or []]
        rows.extend(buttons[i : i + 2] for i in range(0, len(buttons), 2))
    buttons = [Btn(("🔘 " if select and sel.get("choice") == c else "") + choice_label(table, c, kind),
                   data(PromptChoice(tag, i))) for i, c in enumerate(prompt.get("choices") or [])]
    rows.extend(buttons[i : i + 2] for i in range(0, len(buttons), 2))
    if select:
        rows.append([Btn(table.t("prompt.button.confirm", count=len(chosen), size=pick or 1), data(PromptConfirm(tag)))])
    if prompt.get("optional"):
        rows.append([Btn(table.t("prompt.button.pass"), data(PromptPass(tag)))])
    return rows


def _selected(table: Table, kind: str, sel: dict[str, Any]) -> list[Html]:
    """The selection so far, in words ("Selected: ..."), if any."""
    chosen = list(sel.get("targets") or [])
    parts = [table.names_of(chosen)] if chosen else []
    if sel.get("choice"):
        parts.append(esc(choice_label(table, sel["choice"], kind)))
    if sel.get("quest") is not None:
        parts.append(table.t("team.button.quest", quest=sel["quest"] + 1, size="·"))
    return [table.t("team.selected", names=Html(" · ").join(parts))] if parts else []


def answered(table: Table, prompt_text: Html, kind: str, action: Any) -> Html:
    """The private prompt message after its answer (buttons removed)."""
    first = require_text(prompt_text, "answered").lines()[0]
    if kind == "play" and action.choice:
        return first + NL + table.t("played", card=esc(table.card(action.choice)))
    parts = []
    if action.choice == "pass":
        parts.append(table.t("prompt.passed"))
    elif action.choice:
        parts.append(esc(choice_label(table, action.choice, kind)))
    if action.quest is not None:
        parts.append(table.t("team.button.quest", quest=action.quest + 1, size="·"))
    if action.targets:
        parts.append(table.names_of(list(action.targets)))
    return first + NL + table.t("prompt.done", answer=Html(" · ").join(parts) or "✓")
