"""What a seat believes about the others, from its view alone: who it knows, and how likely each
other seat is to be Evil given the public record.

:func:`known` reads the seat's knowledge (reveal, Lady of the Lake, loyalty cards...). :func:`suspicion`
weighs every way of completing the Evil side with seats it does not know (the usual number of Evil
players for the table size) by how well it explains the quests (fail counts a team could not have
produced are all but ruled out; a success with Evil on the team is less likely), what Percival sees
(one of the two thumbs is Morgana when she is in play), and how each seat led and voted (leading or
approving a team that then failed, rejecting one that then succeeded, looks Evil). It returns, for
every seat, the probability it is Evil.
"""
from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from math import exp, log
from typing import Any

from ..basics import SIDES_BY_PLAYERS

View = Mapping[str, Any]  # a seat's view (``engine.view``: a ``SeatView``), only read here

PASS_WITH_EVIL = 0.35  # how likely an Evil member lets a quest succeed
IMPOSSIBLE = 0.02  # a fail count the team could not produce (special cards, switched Lancelots...)
# Behaviour weights (log-odds of being Evil): leading / approving / rejecting a team, by its quest's fate.
LEAD_FAILED, LEAD_PASSED = 0.8, -0.4
APPROVE_FAILED, APPROVE_PASSED = 0.45, -0.1
REJECT_FAILED, REJECT_PASSED = -0.3, 0.25
APPROVE_KNOWN_EVIL = 0.6  # approved a team with a player this seat knows to be Evil


def known(view: View) -> tuple[set[int], set[int]]:
    """(the seats this seat knows to be Evil, those it knows to be Good), itself included."""
    you = view["you"]
    evil, good = set(), set()
    for k in you.get("knowledge") or []:
        if k.get("seat") is None:
            continue
        if k.get("label") == "evil":
            evil.add(k["seat"])
        elif k.get("label") == "good":
            good.add(k["seat"])
    (evil if you["side"] == "evil" else good).add(you["seat"])
    good -= evil
    return evil, good


def evil_total(view: View) -> int:
    """How many Evil players a table of this size has."""
    n = int(view["players"])
    return SIDES_BY_PLAYERS.get(n, (n - n // 3, n // 3))[1]


def _mask(seats: Any) -> int:
    m = 0
    for s in seats:
        m |= 1 << int(s)
    return m


def behaviour(view: View, evil: set[int]) -> list[float]:
    """Per seat, a log-odds weight of being Evil from how it led and voted (public record only)."""
    n = int(view["players"])
    score = [0.0] * n
    fate = {(q["round"], q["quest"]): q["success"] for q in view.get("quests") or []}
    for p in view.get("proposals") or []:
        result = fate.get((p["round"], p["quest"])) if p.get("approved") else None
        team = set(p["team"])
        if result is not None and 0 <= p["leader"] < n:
            score[p["leader"]] += LEAD_PASSED if result else LEAD_FAILED
        votes = p.get("votes") or ""
        for s, letter in enumerate(votes[:n]):
            if result is not None:
                if letter == "A":
                    score[s] += APPROVE_PASSED if result else APPROVE_FAILED
                elif letter == "R":
                    score[s] += REJECT_PASSED if result else REJECT_FAILED
            if letter == "A" and team & evil and s not in team:
                score[s] += APPROVE_KNOWN_EVIL
    return score


def suspicion(view: View) -> list[float]:
    """For every seat, the probability that it is Evil, as this seat's view suggests."""
    n = int(view["players"])
    me = view["you"]["seat"]
    evil, good = known(view)
    unknown = [s for s in range(n) if s not in evil and s not in good]
    missing = max(0, min(len(unknown), evil_total(view) - len(evil)))
    weight = behaviour(view, evil)
    quests = [(_mask(q["team"]), int(q.get("fails") or 0)) for q in view.get("quests") or []]
    thumbs = [k["seat"] for k in view["you"].get("knowledge") or []
              if k.get("label") == "merlin_or_morgana" and k.get("seat") is not None]
    pair = _mask(thumbs) if len(thumbs) == 2 and "morgana" in (view.get("roles_in_play") or []) else 0
    base = _mask(evil)
    impossible = log(IMPOSSIBLE)
    passing = log(PASS_WITH_EVIL)
    totals = [0.0] * n
    mass = 0.0
    for extra in combinations(unknown, missing):
        m = base
        loglik = 0.0
        for s in extra:
            m |= 1 << s
            loglik += weight[s]
        for team, fails in quests:
            on = (team & m).bit_count()
            if fails > on:
                loglik += impossible
            elif not fails and on:
                loglik += on * passing
        if pair and (pair & m).bit_count() != 1:
            loglik += impossible
        w = exp(loglik)
        mass += w
        for s in extra:
            totals[s] += w
    out = [1.0 if s in evil else 0.0 for s in range(n)]
    if mass > 0:
        for s in unknown:
            out[s] = totals[s] / mass
    out[me] = 1.0 if me in evil else 0.0
    return out
