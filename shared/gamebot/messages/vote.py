"""The Leader's team picker (a keyboard in their private chat), the vote message and what the vote decided.
"""
from __future__ import annotations

from engine import Prompt
from engine.views import PublicView
from gamebot.botapi.buttons import Op, TeamConfirm, TeamQuest, TeamSeat, Vote
from gamebot.botapi.callbacks import Codec
from gamebot.botapi.telegram_io import Btn, Keyboard
from gamebot.language import texts, wording
from gamebot.language.markup import Html, shorten
from gamebot.messages.events import announcements
from gamebot.messages.table import NL, Table, esc
from gamebot.messages.time_limits import prompt_lines


def team_sizes(prompt: Prompt, pv: PublicView) -> tuple[dict[int, int], int]:
    """A team decision's sizes by quest index (the quest in play alone, without Targeting) and its attempt
    (1 to 5), from the engine's prompt."""
    sizes = {int(k): int(v) for k, v in (prompt.info.get("sizes") or {}).items()}
    if not sizes:
        sizes = {pv["quest_choices"][0] if pv["quest_choices"] else 0: prompt.pick}
    return sizes, int(prompt.info.get("attempt", pv["vote_track"] + 1))


def picker_heading(table: Table, pv: PublicView, sizes: dict[int, int], quests: list[int], attempt: int,
                   leader: Html) -> Html:
    """What the Leader is asked: the team for the quest in play, or (Targeting) a quest and its team, with
    each quest's size (* when it needs two Fails)."""
    if not quests:
        slot = next(iter(sizes))
        return table.t("team.title", leader=leader, size=sizes[slot], quest=slot + 1, attempt=attempt)
    text = table.t("team.title_targeting", leader=leader, attempt=attempt)
    for q in quests:
        star = "*" if pv["track"][q]["fails_needed"] > 1 else ""
        text += NL + table.t("team.quest_sizes", quest=q + 1, size=sizes[q], star=star)
    return text


def team_picker(
    table: Table,
    pv: PublicView,
    sizes: dict[int, int],
    quests: list[int],
    attempt: int,
    selected: list[int],
    quest: int | None,
    codec: Codec,
    serial: int,
) -> tuple[Html, Keyboard]:
    """The Leader's keyboard in their private chat: player names to toggle, quest choice (Targeting), Propose.
    Drawn again at every toggle (``gamebot.handlers.selection``): ✅ on each name in ``selected``, "Selected: ..." in
    the text, the count on Propose."""
    def data(op: Op) -> str:
        return op.encode(codec, table.chat_id, table.game_id, serial)

    text = picker_heading(table, pv, sizes, quests, attempt, table.mention(pv["leader"]))
    chosen = [s for s in selected if 0 <= s < pv["players"]]
    if quests and quest is not None:
        text += NL + table.t("team.quest_chosen", quest=quest + 1, size=sizes[quest])
    text += NL + (table.t("team.selected", names=table.names_of(chosen)) if chosen else table.t("team.selected_none"))
    text += Html("").join(NL + line for line in prompt_lines(table))
    rows: Keyboard = []
    if quests:
        row = []
        for q in quests:
            mark = "🎯 " if quest == q else ""
            row.append(Btn(mark + table.t("team.button.quest", quest=q + 1, size=sizes[q]), data(TeamQuest(q))))
        rows.extend(row[i : i + 3] for i in range(0, len(row), 3))
    buttons = [
        Btn(("✅ " if s in chosen else "▫️ ") + shorten(table.names[s], 24), data(TeamSeat(s))) for s in range(pv["players"])
    ]
    rows.extend(buttons[i : i + 2] for i in range(0, len(buttons), 2))
    if quests and quest is None:
        rows.append([Btn(table.t("team.button.confirm_noquest"), data(TeamConfirm()))])
    else:
        size = sizes[quest] if quest is not None else next(iter(sizes.values()))
        rows.append([Btn(table.t("team.button.confirm", count=len(chosen), size=size), data(TeamConfirm()))])
    return text, rows


def _vote_head(table: Table, pv: PublicView) -> Html:
    last = pv["proposals"][-1] if pv["proposals"] else None
    quest, leader, team = (last["quest"], last["leader"], last["team"]) if last else (0, pv["leader"], pv["team"])
    attempt = pv["vote_track"] + 1
    return table.t(
        "vote.title",
        quest=quest + 1,
        attempt=attempt,
        leader=table.name(leader),
        team=table.names_of(team),
    )


def vote_message(table: Table, pv: PublicView, codec: Codec, serial: int) -> tuple[Html, Keyboard]:
    """The vote in the group: who has voted (never how) and the Approve / Reject buttons."""
    voted = list(pv.get("voted") or [])
    lines = [_vote_head(table, pv)]
    lines.extend(open_votes(table, pv))
    lines.extend(wording.first_voters(table, pv))
    if voted:
        lines.append(table.t("vote.progress", count=len(voted), of=pv["players"], names=table.names_of(voted)))
    waiting = [s for s in range(pv["players"]) if s not in voted]
    lines.append(table.t("vote.waiting", names=table.names_of(waiting)))
    lines.extend(prompt_lines(table))
    kb = [[
        Btn(table.t("vote.button.approve"), Vote(True).encode(codec, table.chat_id, table.game_id, serial)),
        Btn(table.t("vote.button.reject"), Vote(False).encode(codec, table.chat_id, table.game_id, serial)),
    ]]
    return NL.join(lines), kb


def open_votes(table: Table, pv: PublicView) -> list[Html]:
    """Votes cast first and in the open (the Plot card Opinion Maker / Charge), in the vote message."""
    plot = pv.get("plot")
    shown = plot.get("open_votes") if isinstance(plot, dict) else None
    if not isinstance(shown, dict):
        return []
    return [table.t("ev.VoteShown", seat=table.name(int(seat)), vote=esc(texts.name_of("vote", str(vote), table.lang, table.theme)))
            for seat, vote in shown.items() if str(seat).isdigit()]


def proposal_line(table: Table, pv: PublicView) -> Html:
    """The team picker once the team is proposed, while another decision comes before the vote."""
    if not pv["proposals"]:
        return Html("✔️")
    proposal = pv["proposals"][-1]
    return table.t("team.proposed", leader=table.name(proposal["leader"]), team=table.names_of(proposal["team"]),
                   quest=proposal["quest"] + 1)


# Public events the vote message tells once everyone has voted (instead of a message of their own).
TOLD_BY_THE_VOTE = {"VotesRevealed", "TeamApproved", "TeamRejected", "QuestStarted"}


def vote_outcome(table: Table, pv: PublicView) -> list[Html]:
    """What the last proposal's votes decided, from the public view: every vote, then the team approved
    (and its quest starting) or rejected."""
    from engine import Event

    if not pv.get("proposals"):
        return []
    p = pv["proposals"][-1]
    votes = p.get("votes") or ""
    if not votes:
        return []
    events = [Event(type="VotesRevealed", data={
        "approve": [i for i, v in enumerate(votes) if v == "A"], "reject": [i for i, v in enumerate(votes) if v == "R"],
        "approved": bool(p.get("approved"))})]
    if p.get("approved"):
        events += [Event(type="TeamApproved", data={"team": p["team"], "quest": p["quest"]}),
                   Event(type="QuestStarted", data={"quest": p["quest"], "team": p["team"]})]
    elif p.get("note") is None:
        events.append(Event(type="TeamRejected", data={"team": p["team"], "rejections": pv["vote_track"]}))
    return announcements(table, events)


def vote_result(table: Table, pv: PublicView, played: bool = False, head: PublicView | None = None) -> Html:
    """The vote message once everyone has voted: the proposal, the votes and what they decided; during
    the quest (``played``), how many cards are in. ``head``: the view the vote was made in (its team
    number), when ``pv`` is after it."""
    lines = [_vote_head(table, head or pv), *vote_outcome(table, pv)]
    if played and pv.get("stage") == "quest":
        quest = pv["quest"] if pv["quest"] is not None else 0
        count = len(pv.get("played") or [])
        lines.append(table.t("quest.progress", quest=quest + 1, team=table.names_of(pv["team"]), count=count,
                             of=len(pv["team"])))
    return NL.join(lines)
