"""The end of a game in words: the result (who won, why, by whose hand), every role, and the history
a player can retell the game from, one line per event, grouped by round.

Everything comes from the final public view (``engine.public_view`` once the game is over), so the
history tells what the table saw and what the end reveals (roles, sides, who held a hidden decision
that ran out of time), never what stays secret (who played which quest card, what a loyalty check or
Excalibur showed). The rounds and turns come from :mod:`gamebot.story.by_round`; plug-ins add their lines
through ``messages.view_lines.HISTORY_LINES``. The picture (``gamebot.story.picture``) draws the same story: it takes its
notes from :func:`round_lines` and its result from :func:`result`.
"""
from __future__ import annotations

from collections.abc import Iterable

from engine.view_types import PublicView, TimeoutRecord
from gamebot.language import texts, wording
from gamebot.language.markup import Html, cap
from gamebot.messages.events import event_line
from gamebot.messages.table import NL, Table, esc, split
from gamebot.messages.values import card_counts, quest_outcome
from gamebot.messages.view_lines import plugin_history, this_round
from gamebot.story import by_round

# What a line of a round tells: its heading, a Leader's turn, the quest, a vote that ran out of time
# (the picture's grid shows these four), or anything else (a note: the picture writes it under the grid).
HEAD, TURN, QUEST, VOTE_TIMEOUT, NOTE = "head", "turn", "quest", "vote_timeout", "note"


def _seat(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def rogue_seat(pv: PublicView) -> int | None:
    """The Rogue who won alone, if one did."""
    rogue = pv.get("rogue")
    return _seat(rogue.get("solo")) if isinstance(rogue, dict) else None


def assassin_name(table: Table, pv: PublicView) -> Html:
    """Who assassinated (a recruited Servant too), else the Assassin's title (an older summary)."""
    attempt = pv.get("assassination")
    seat = _seat(attempt.get("assassin")) if isinstance(attempt, dict) else None
    return table.name(seat) if seat is not None else cap(wording.role_a(table, "assassin"))


def title(table: Table, pv: PublicView) -> Html:
    winner = pv.get("winner")
    rogue = rogue_seat(pv)
    if rogue is not None:
        roles = pv.get("roles") or []
        role = roles[rogue] if rogue < len(roles) else ("good_rogue" if winner == "good" else "evil_rogue")
        return table.t("end.title.rogue", name=table.name(rogue), role=esc(table.role(str(role))))
    return table.t(f"end.title.{winner}" if winner in ("good", "evil") else "end.title.none")


def reason(table: Table, pv: PublicView) -> Html | None:
    """Why the game ended, naming who assassinated when an assassination decided it."""
    why = pv.get("win_reason")
    if not why:
        return None
    attempt = pv.get("assassination")
    kind = attempt.get("kind") if isinstance(attempt, dict) else None  # (no assassination: the plain wording)
    keys = [f"end.reason.{why}.{kind}", f"end.reason.{why}"]
    for key in keys:
        if texts.has(key, table.lang):
            return table.t(key, assassin=assassin_name(table, pv))
    return table.t("end.reason.generic", reason=esc(texts.humanize(str(why))))


def result(table: Table, pv: PublicView, status: str = "ended") -> tuple[Html, str | None]:
    """The short result of the picture and its caption (markup), and the side it is told in."""
    winner = pv.get("winner")
    if status == "cancelled":
        return table.t("picture.result.cancelled"), None
    if status == "playing":  # the vote history of a game in progress (``gamebot.story.votes_so_far``)
        return table.t("votes.in_progress", round=pv.get("round") or 1), None
    rogue = rogue_seat(pv)
    if rogue is not None:
        return table.t("picture.result.rogue", name=table.name(rogue)), winner if winner in ("good", "evil") else None
    if winner in ("good", "evil"):
        return table.t(f"picture.result.{winner}"), winner
    return table.t("picture.result.none"), None


def head(table: Table, pv: PublicView, cancelled_by: str | None = None) -> list[Html]:
    if cancelled_by is not None:
        lines = [table.t("end.cancelled", name=esc(cancelled_by))]
    else:
        lines = [title(table, pv)]
        why = reason(table, pv)
        if why:
            lines.append(why)
        if pv.get("winners") and rogue_seat(pv) is None:  # a Rogue's solo win already names its winner
            lines.append(table.t("end.winners", names=table.names_of(pv["winners"])))
    roles = pv.get("roles") or []
    sides = pv.get("sides") or []
    lines += [Html(""), table.t("end.roles")]
    for seat in range(len(roles)):
        side = sides[seat] if seat < len(sides) else ""
        icon = "😇" if side == "good" else "😈"
        note = wording.side_note(table, roles[seat], side)  # (nothing when the name says the side)
        lines.append(table.t("end.role_line" if note else "end.role_line_named", icon=icon, name=table.name(seat),
                             role=esc(table.role(roles[seat])), side=esc(note)))
    return lines


def timeout_lines(table: Table, entries: Iterable[TimeoutRecord]) -> list[Html]:
    """``⏰ Out of time: Carol and Dave (vote)``: one line per decision kind, in the order they ran out."""
    groups: dict[tuple[str, bool], list[int]] = {}
    for e in entries:
        seats = groups.setdefault((str(e.get("kind")), bool(e.get("hidden"))), [])
        if _seat(e.get("seat")) is not None and e["seat"] not in seats:
            seats.append(e["seat"])
    key = {False: "end.line.timeout", True: "end.line.timeout_hidden"}
    return [table.t(key[hidden], names=table.names_of(seats), what=esc(table.kind(kind)))
            for (kind, hidden), seats in groups.items()]


def turn_line(table: Table, turn: by_round.Turn) -> Html:
    if turn.skipped:
        return table.t("end.skipped", number=turn.number, leader=table.name(turn.leader))
    if turn.open:  # the vote is going on: who has voted so far, never a result
        voted = (table.t("end.voted_so_far", count=len(turn.voted), names=table.names_of(turn.voted)) if turn.voted
                 else table.t("end.voted_none"))
        return table.t("end.proposal_open", number=turn.number, leader=table.name(turn.leader),
                       team=table.names_of(turn.team), voted=voted)
    note = turn.proposal.get("note") if turn.proposal else None
    votes = turn.votes
    approve = [i for i, v in enumerate(votes) if v == "A"]
    reject = [i for i, v in enumerate(votes) if v == "R"]
    outcome = table.t("end.approved") if turn.approved else table.t("end.rejected")
    if note:
        outcome += Html(" ({})").format(table.note(str(note)))
    return table.t("end.proposal", number=turn.number, leader=table.name(turn.leader), team=table.names_of(turn.team),
                   approve=table.names_of(approve) if votes else "?", reject=table.names_of(reject) if votes else "?",
                   result=outcome)


def _lady_lines(table: Table, pv: PublicView, rnd: int) -> list[Html]:
    lady = pv.get("lady")
    uses = lady.get("uses") if isinstance(lady, dict) else None  # (None: no Lady of the Lake in this game)
    return [table.t("end.line.lady", holder=table.name(_seat(u.get("holder"))), target=table.name(_seat(u.get("target"))))
            for u in this_round(uses, rnd)]


def round_lines(table: Table, pv: PublicView, r: by_round.Round) -> list[tuple[str, Html]]:
    """One round of the history, each line with what it tells (``HEAD``, ``TURN``, ``QUEST``,
    ``VOTE_TIMEOUT`` or ``NOTE``: what the picture's grid and quest track do not show)."""
    slot = r.slot + 1 if r.slot is not None else "?"
    out = [(HEAD, table.t("end.round", round=r.number, quest=slot))]
    out += [(NOTE, line) for line in plugin_history(table, pv, r.number, before=True)]
    for turn in r.turns:
        out += [(NOTE, line) for line in timeout_lines(table, turn.before)]
        out.append((TURN, turn_line(table, turn)))
        votes = [t for t in turn.timeouts if t.get("kind") == "vote"]
        out += [(NOTE, line) for line in timeout_lines(table, [t for t in turn.timeouts if t not in votes])]
        out += [(VOTE_TIMEOUT, line) for line in timeout_lines(table, votes)]
    out += [(NOTE, line) for line in plugin_history(table, pv, r.number, before=False)]
    out += [(NOTE, line) for line in timeout_lines(table, r.quest_timeouts)]
    q = r.quest
    if q:
        cards = card_counts(table, dict(q.get("cards") or {}))
        out.append((QUEST, table.t(f"end.quest_result.{quest_outcome(q)}", team=table.names_of(q.get("team") or []),
                                   cards=cards, fails=q.get("fails", 0), fails_needed=q.get("fails_needed", 1))))
    elif r.underway:  # the team is on its quest now: no result yet
        team = table.names_of(r.team)
        out.append((NOTE, table.t("end.quest_underway", team=team) if r.played is None
                    else table.t("end.quest_cards_in", team=team, count=r.played, size=len(r.team))))
    out += [(NOTE, line) for line in _lady_lines(table, pv, r.number)]
    out += [(NOTE, line) for line in timeout_lines(table, r.after)]
    return out


def end_lines(table: Table, pv: PublicView) -> list[Html]:
    """After the rounds: the Recruitment, the target announced, the assassination, who ran out of time."""
    lines = []
    recruitment = pv.get("recruitment")
    if isinstance(recruitment, dict) and _seat(recruitment.get("target")) is not None:
        lines.append(event_line(table, "RecruitmentAttempted", dict(recruitment)))
    attempt = pv.get("assassination")
    if isinstance(attempt, dict) and _seat(attempt.get("assassin")) is not None:
        if attempt.get("announced") and attempt.get("kind"):
            lines.append(event_line(table, "AssassinTargetAnnounced",
                                    {"assassin": attempt["assassin"], "target": attempt["kind"]}))
        named = [s for s in attempt.get("named") or [] if _seat(s) is not None]
        if named:
            data: dict[str, object] = {"assassin": attempt["assassin"], "hit": bool(attempt.get("hit"))}
            if len(named) == 1:
                data["target"] = named[0]
            else:
                data.update(targets=named, kind=attempt.get("kind"))
            lines.append(event_line(table, "AssassinationAttempted", data))
    out = [table.t("end.line.indent", line=line) for line in lines if line]
    return out + timeout_lines(table, by_round.end_timeouts(pv))


def history(table: Table, pv: PublicView) -> list[Html]:
    lines = [table.t("end.history")]
    for r in by_round.rounds(pv):
        lines += [line for _, line in round_lines(table, pv, r)]
    after = end_lines(table, pv)
    if after:
        lines += [table.t("end.after"), *after]
    return lines


def game_over(table: Table, pv: PublicView, cancelled_by: str | None = None) -> list[Html]:
    """The end: the result and why, every role revealed, then the round-by-round history (none when
    nothing happened to tell: a game cancelled before its first team)."""
    told = history(table, pv)
    return split(NL.join(head(table, pv, cancelled_by))) + (split(NL.join(told)) if len(told) > 1 else [])
