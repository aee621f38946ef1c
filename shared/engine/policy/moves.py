"""The policy's answer to each kind of prompt, from one seat's view (see ``engine.policy``)."""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from ..cards import CARDS
from ..models import Action
from .belief import (
    FIRST_QUEST_FAILS,
    Hypothesis,
    Moments,
    crowded,
    decisive,
    fails_needed,
    guide,
    known,
    merlin_odds,
    moment,
    numbered,
    read_record,
    servant,
    suspicion,
)

View = Mapping[str, Any]  # a seat's view (``engine.view``: a ``SeatView``), only read here
Prompt = dict[str, Any]

APPROVE_RATIO = 0.85  # Good approves a team at least this likely to be clean, relative to the best team
APPROVE_DECIDING = 0.99  # ... on a quest that decides the game: only a team about as clean as its best
LAST_STAND = 0.5  # once a failed quest gives Evil the game, Good approves only a team at least this likely
# to hold too few Evil players to fail it (more likely safe than not)
SERVANT_VOTES = 0.5  # how many of the table's votes Evil's own Servant reading counts for when it votes


def evil_side(view: View) -> bool:
    return bool(view["you"]["side"] == "evil")


def _merlin(view: View) -> bool:
    return bool(view["you"].get("role") == "merlin")


def _quest(view: View, prompt: Prompt | None = None) -> int | None:
    if view.get("quest") is not None:
        return int(view["quest"])
    choices = (prompt or {}).get("quests") or view.get("quest_choices") or []
    return int(choices[0]) if choices else None


def score(view: View) -> tuple[int, int]:
    """(quests passed, quests failed) so far."""
    results = [t.get("result") for t in view.get("track") or []]
    return sum(r is True for r in results), sum(r is False for r in results)


def public_record(view: View) -> View:
    """The view without what the seat saw at the Reveal (Merlin's disguise: he acts as if he had not
    seen the Evil players)."""
    you = dict(view["you"])
    you["knowledge"] = [k for k in you.get("knowledge") or [] if k.get("source") != "reveal"]
    return {**view, "you": you}


def _size(prompt: Prompt, quest: int | None) -> int:
    sizes = (prompt.get("info") or {}).get("sizes")
    if quest is not None and sizes:
        return int(sizes[str(quest)])
    return int(prompt.get("pick") or 1)


def propose(view: View, prompt: Prompt, rng: random.Random) -> Action:
    """Itself and the seats a Servant in its seat would trust most (Merlin too: a team he leads shows
    nothing he saw); Evil puts a mate on when the quest needs two fails."""
    me = view["you"]["seat"]
    quest = rng.choice(prompt["quests"]) if prompt.get("quests") else None
    size = _size(prompt, quest)
    targets = [s for s in prompt.get("targets") or [] if s != me]
    if evil_side(view):
        evil, _ = known(view)
        public = suspicion(as_servant(view))
        others = sorted(targets, key=lambda s: (public[s], rng.random()))
        need = fails_needed(view, quest if quest is not None else _quest(view, prompt))
        if need >= 2:
            mates = [s for s in others if s in evil]
            others = mates[:need - 1] + [s for s in others if s not in mates[:need - 1]]
    else:
        p = suspicion(public_record(view) if _merlin(view) else view)
        others = sorted(targets, key=lambda s: (p[s], rng.random()))
    team = ([me] if me in (prompt.get("targets") or []) else []) + others
    return Action(seat=me, kind=prompt["kind"], targets=tuple(sorted(team[:size])), quest=quest)


def _clean(p: list[float], seats: Any) -> float:
    out = 1.0
    for s in seats:
        out *= 1.0 - p[s]
    return out


def _safe(p: list[float], seats: Any, need: int) -> float:
    """How likely fewer than ``need`` of ``seats`` are Evil (each seat Evil with ``p``, independently)."""
    dist = [1.0]  # dist[k]: the probability that k of the seats so far are Evil
    for s in seats:
        dist = [(dist[k] if k < len(dist) else 0.0) * (1.0 - p[s]) + (dist[k - 1] * p[s] if k else 0.0)
                for k in range(len(dist) + 1)]
    return sum(dist[:need])


def as_servant(view: View) -> View:
    """The view a Servant in this seat would have: the public table, no knowledge, the Good side."""
    you = {**view["you"], "side": "good", "role": "servant", "knowledge": []}
    return {**view, "you": you}


def _good_vote(view: View, team: list[int], rng: random.Random, p: list[float] | None = None) -> bool:
    """Good approves a team about as likely to be clean as the best it could pick (``APPROVE_RATIO`` of it;
    on a quest deciding the game, ``APPROVE_DECIDING``), always the fifth team (its rejection hands Evil
    the game), never one with a player it knows to be Evil; its own, always; once a failed quest gives
    Evil the game, only a team it thinks more likely safe than not (``LAST_STAND``). Merlin votes so on
    the public record, except that he rejects a team (not the fifth) with an Evil player he saw: one he is
    on (not as its Leader) ``belief.guide`` of the time; any, once Evil has two fails (then, with two Evil
    players, he also approves a team he is on without Evil: from three, one vote of many, that passed no
    more quests and showed him). ``p``: the seat's belief, when the caller has it (the Assassin's model)."""
    me = view["you"]["seat"]
    fifth = int(view.get("vote_track") or 0) >= 4
    if _merlin(view):
        evil, _ = known(view)
        late = score(view)[1] >= 2
        member = me in team and view.get("leader") != me
        if not fifth and set(team) & evil and (late or (member and rng.random() < guide(view))):
            return False
        if not (late and member) or crowded(view):
            view = public_record(view)
    evil, _ = known(view)
    if fifth:
        return True
    leader = view.get("leader")
    if set(team) & evil or (leader is not None and leader not in team):  # (a Good Leader is on his own team)
        return False
    if leader == me:
        return True
    p = suspicion(view) if p is None else p
    if score(view)[1] >= 2 and _safe(p, team, fails_needed(view, _quest(view))) < LAST_STAND:
        return False
    others = sorted(s for s in range(int(view["players"])) if s != me)
    best = _clean(p, sorted(others, key=lambda s: p[s])[:max(0, len(team) - 1)])
    return _clean(p, team) >= (APPROVE_DECIDING if decisive(*score(view)) else APPROVE_RATIO) * best


def _table_votes(view: View, on: bool, evil: set[int]) -> tuple[int, int]:
    """(approvals, votes) of the Good seats (as far as ``evil`` tells) on the earlier proposals, on the team
    (``on``) or off it; but not a Leader's vote, nor any on a round's fifth team."""
    yes = votes = 0
    for number, p in numbered(view):
        if number >= 4:
            continue
        for s, x in enumerate((p.get("votes") or "")[:int(view["players"])]):
            if x in "AR" and s not in evil and s != p["leader"] and (s in p["team"]) == on:
                votes += 1
                yes += x == "A"
    return yes, votes


def vote(view: View, prompt: Prompt, rng: random.Random) -> Action:
    """Good: ``_good_vote``. Evil votes as the Good seats at the table have (its votes tell nothing): it
    approves a team (not the fifth, not its own) as often as they approved on the earlier proposals, on
    the team or off it as it is now, its vote as a Servant in its seat counting as ``SERVANT_VOTES`` of
    theirs (all of it on a bare record); and it approves a team it is on that can fail the quest deciding
    the game."""
    me = view["you"]["seat"]
    team = list((prompt.get("info") or {}).get("team") or view.get("team") or [])
    if not evil_side(view):
        approve = _good_vote(view, team, rng)
    else:
        evil, _ = known(view)
        approve = _good_vote(as_servant(view), team, rng)
        if int(view.get("vote_track") or 0) < 4 and view.get("leader") != me:
            yes, votes = _table_votes(view, me in team, evil)
            approve = rng.random() < (yes + SERVANT_VOTES * approve) / (votes + SERVANT_VOTES)
        if me in team and decisive(*score(view)) and len(set(team) & evil) >= fails_needed(view, _quest(view)):
            approve = True
    return Action(seat=me, kind="vote", choice="approve" if approve else "reject")


def card(view: View, prompt: Prompt, rng: random.Random, fail_rate: float) -> Action:
    """Good plays a card counting as Success. Evil fails when the quest needs it; with a known mate on
    the team only the lowest seat of them fails (unless two fails are needed); otherwise it fails
    with ``fail_rate`` (on the first quest, ``FIRST_QUEST_FAILS`` of it), always when the quest decides
    the game."""
    me = view["you"]["seat"]
    cards = list(prompt.get("choices") or [])
    success = [c for c in cards if CARDS.get(c) == "success"]
    failing = [c for c in cards if CARDS.get(c) == "fail"]
    if evil_side(view) and failing:
        evil, _ = known(view)
        team = set(view.get("team") or [])
        need = fails_needed(view, _quest(view))
        on = sorted(team & evil) or [me]
        passed, failed = score(view)
        if need >= 2:
            fail = True
        elif on[0] != me:
            fail = False
        else:
            first = _quest(view) == 0  # (a fail on the first quest shows a spy on a small team, for little)
            fail = passed >= 2 or failed >= 2 or rng.random() < fail_rate * (FIRST_QUEST_FAILS if first else 1.0)
        if fail:
            return Action(seat=me, kind="play", choice=rng.choice(failing))
    return Action(seat=me, kind="play", choice=rng.choice(success or cards))


def excalibur(view: View, prompt: Prompt, rng: random.Random) -> Action:
    """Good turns the card of a player it knows (or all but knows) to be Evil; Evil turns a Good card."""
    me = view["you"]["seat"]
    evil, good = known(view)
    targets = [s for s in prompt.get("targets") or [] if s != me]
    if evil_side(view):
        pick = [s for s in targets if s not in evil]
        if pick and rng.random() < 0.6:
            return Action(seat=me, kind=prompt["kind"], targets=(rng.choice(pick),))
    else:
        p = suspicion(view)
        pick = [s for s in targets if s in evil or (s not in good and p[s] >= 0.95)]
        if pick:
            return Action(seat=me, kind=prompt["kind"], targets=(rng.choice(pick),))
    return Action(seat=me, kind=prompt["kind"], choice="pass")


def assassinate(view: View, prompt: Prompt, rng: random.Random) -> Action:
    """The Good seat whose votes read most as Merlin's against as a Servant's (``belief.merlin_odds``), given
    the Evil players this seat knows: once Evil has two fails, against what the policy's Servant in that
    seat would have voted (``belief.TABLE`` of the reading still the table's votes: people differ)."""
    me = view["you"]["seat"]
    evil, _ = known(view)
    targets = [s for s in prompt.get("targets") or [] if s != me] or list(prompt.get("targets") or [])
    proposals = view.get("proposals") or []
    n = int(view["players"])
    moments = Moments(view)
    tables: dict[int, list[Hypothesis]] = {}  # per proposal, the hypotheses then (asked in increasing order)

    def rejects(k: int, seat: int) -> bool:
        """Whether a Servant in ``seat`` would have rejected proposal ``k``."""
        team = list(proposals[k]["team"])
        if seat in evil or (crowded(view) and not set(team) & evil):  # (there, read on a team with Evil only)
            return False
        if k not in tables:
            tables[k] = moments.at(k)
        return not _good_vote(moment(view, k, seat), team, rng, servant(tables[k], n, seat))
    odds = merlin_odds(read_record(view, rejects), sum(1 << s for s in evil), targets)
    ranked = sorted(targets, key=lambda s: -(odds[s] + rng.random() * 1e-6))
    pick = int(prompt.get("pick") or 1)
    return Action(seat=me, kind=prompt["kind"], targets=tuple(sorted(ranked[:pick])))


def pick(view: View, prompt: Prompt, rng: random.Random) -> Action:
    """A choice of players: Good gives things to those it trusts most; a look (Lady of the Lake...) goes
    to the seat it is least sure of; Evil hands things to its mates and looks at anyone else."""
    me = view["you"]["seat"]
    evil, good = known(view)
    targets = list(prompt.get("targets") or [])
    quest = rng.choice(prompt["quests"]) if prompt.get("quests") else None
    size = _size(prompt, quest) if prompt.get("quests") else int(prompt.get("pick") or 1)
    giving = prompt["kind"].startswith("give")
    if evil_side(view):
        if giving:
            ranked = sorted(targets, key=lambda s: (s not in evil or s == me, rng.random()))
        else:
            ranked = sorted(targets, key=lambda s: (s == me, s in evil, rng.random()))
    else:
        p = suspicion(view)
        if giving:
            ranked = sorted(targets, key=lambda s: (s == me, p[s], rng.random()))
        else:
            ranked = sorted(targets, key=lambda s: (s == me, s in evil or s in good, abs(p[s] - 0.5),
                                                    rng.random()))
    return Action(seat=me, kind=prompt["kind"], targets=tuple(sorted(ranked[:size])), quest=quest)


def overrule(view: View, prompt: Prompt) -> Action:
    """No Confidence / The King Returns on an approved team (a rejection after all; the fifth of a round
    wins for Evil). Good plays it only on a team with a player it knows to be Evil, never as the fifth
    rejection; Evil plays it on a team without Evil, and always when it would be the fifth."""
    me = view["you"]["seat"]
    team = set(view.get("team") or [])
    evil, _ = known(view)
    fifth = int(view.get("vote_track") or 0) >= 4
    play = (fifth or not team & evil) if evil_side(view) else (bool(team & evil) and not fifth)
    return Action(seat=me, kind=prompt["kind"], choice="play" if play else "pass")
