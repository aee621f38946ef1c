"""The lobby message and the rules (``/rules``) of the characters and modules chosen.
"""
from __future__ import annotations

from collections.abc import Mapping

from gamebot.botapi.buttons import AddAiSeat, Join, Leave, Op, OpenSettings, RemoveAiSeat, StartGame
from gamebot.botapi.callbacks import Codec
from gamebot.botapi.telegram_io import Btn, Keyboard
from gamebot.language import texts, wording
from gamebot.language.markup import Html
from gamebot.messages.settings import in_reading_order
from gamebot.messages.table import NL, Table, esc
from gamebot.storage.seats import is_ai_seat_id


def settings_summary(table: Table, roles: list[str], options: Mapping[str, object]) -> tuple[Html, Html]:
    """The characters (as players read them: Good, Evil, those who may change sides) and the options."""
    role_names = Html(", ").join(table.role(r) for r in in_reading_order(roles)) or table.t("nothing")
    opts = [
        table.module(k) if v is True
        else Html("{} ({})").format(table.module(k), texts.name_of("variant", str(v), table.lang, table.theme))
        for k, v in sorted(options.items())
        if v
    ]
    return role_names, Html(", ").join(opts) or table.t("nothing")


def lobby(table: Table, host: str | None, roles: list[str], options: Mapping[str, object], codec: Codec,
          assassin: str | None = None, invited: list[tuple[int, str]] | None = None,
          practice: bool = False) -> tuple[Html, Keyboard]:
    """The lobby message; ``assassin``: who assassinates when no Assassin card plays (a name);
    ``invited``: (user id, name) of the last game's players not back yet ("Play again"); ``practice``: a
    /practice lobby in the player's private chat (no Join: the player and the AI seats they add)."""
    role_names, option_names = settings_summary(table, roles, options)
    title = table.t("practice.lobby_title") if practice else table.t("lobby.title")
    lines = [title, table.t("lobby.host", host=esc(host or "—")), ""]
    lines.append(table.t("lobby.players", count=len(table.names)))
    if table.names:
        lines.extend(table.t("lobby.player_line", n=i + 1, name=table.name(i)) for i in range(len(table.names)))
    else:
        lines.append(table.t("lobby.no_players"))
    if invited:
        names = texts.join_names([Html('<a href="tg://user?id={}">{}</a>').format(int(uid), name)
                                  for uid, name in invited], table.lang)
        lines.append(table.t("rematch.invited", names=names))
    if len(table.names) < 5:
        lines.append(table.t("lobby.need_more"))
    lines += [Html(""), table.t("lobby.settings", roles=role_names), table.t("lobby.options", options=option_names)]
    if assassin:
        lines.append(table.t("lobby.assassin", role=esc(assassin)))
    lines += [Html(""), table.t("practice.howto" if practice else "lobby.howto")]

    def data(op: Op) -> str:
        return op.encode(codec, table.chat_id, table.game_id)

    seat_row = [Btn(table.t("lobby.button.add_ai_seat"), data(AddAiSeat()))]
    if any(is_ai_seat_id(uid) for uid in table.user_ids):
        seat_row.append(Btn(table.t("lobby.button.remove_ai_seat"), data(RemoveAiSeat())))
    kb = [] if practice else [
        [Btn(table.t("lobby.button.join"), data(Join())), Btn(table.t("lobby.button.leave"), data(Leave()))]]
    kb += [
        seat_row,
        [Btn(table.t("lobby.button.settings"), data(OpenSettings())), Btn(table.t("lobby.button.start"), data(StartGame()))],
    ]
    if table.bot_username and not practice:
        kb.append([Btn(table.t("lobby.button.open_bot"), url=table.deep_link("j"))])
    return NL.join(lines), kb


def rules_text(table: Table, roles: list[str], options: Mapping[str, object]) -> Html:
    from engine import ROLES

    lines = [table.t(f"rules.{table.theme}")]
    if roles:
        lines += [Html(""), table.t("rules.roles_in_play")]
        for rid in dict.fromkeys(in_reading_order(roles)):
            side = ROLES[rid].side.value if rid in ROLES else "good"
            note = wording.side_note(table, rid, side)
            lines.append(table.t("rules.role_line" if note else "rules.role_line_named", role=esc(table.role(rid)),
                                 side=esc(note), help=wording.role_help(table, rid, side, options)))
    mods = [k for k, v in options.items() if v]
    if mods:
        lines += [Html(""), table.t("rules.modules_in_play")]
        for k in mods:
            key = f"modulehelp.{k}"
            helptext = table.t(key) if texts.has(key, table.lang) else ""
            lines.append(table.t("rules.module_line", module=esc(table.module(k)), help=helptext))
    return NL.join(lines)
