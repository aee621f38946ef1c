"""The policy's answer to each kind of prompt, from one seat's view (see ``engine.policy``)."""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from ..cards import CARDS
from ..models import Action
from .belief import known, suspicion

View = Mapping[str, Any]  # a seat's view (``engine.view``: a ``SeatView``), only read here
Prompt = dict[str, Any]

APPROVE_RATIO = 0.6  # Good approves a team at least this likely to be clean, relative to the best team
MERLIN_DISGUISE = 1.0  # how often Merlin leads and votes on the public record alone, as any Servant would


def evil_side(view: View) -> bool:
    return bool(view["you"]["side"] == "evil")


def _merlin(view: View) -> bool:
    return bool(view["you"].get("role") == "merlin")


def _quest(view: View, prompt: Prompt | None = None) -> int | None:
    if view.get("quest") is not None:
        return int(view["quest"])
    choices = (prompt or {}).get("quests") or view.get("quest_choices") or []
    return int(choices[0]) if choices else None


def _fails_needed(view: View, quest: int | None) -> int:
    track = view.get("track") or []
    if quest is None or quest >= len(track):
        return 1
    return int(track[quest].get("fails_needed") or 1)


def score(view: View) -> tuple[int, int]:
    """(quests passed, quests failed) so far."""
    results = [t.get("result") for t in view.get("track") or []]
    return sum(r is True for r in results), sum(r is False for r in results)


def _disguised(view: View, rng: random.Random) -> bool:
    """Whether Merlin acts on the public record only this time: not when Evil is one quest from winning."""
    return _merlin(view) and score(view)[1] < 2 and rng.random() < MERLIN_DISGUISE


def public_record(view: View) -> View:
    """The view without what the seat saw at the Reveal (Merlin's disguise: he acts as if he had not
    seen the Evil players)."""
    you = dict(view["you"])
    you["knowledge"] = [k for k in you.get("knowledge") or [] if k.get("source") != "reveal"]
    return {**view, "you": you}


def _public_suspicion(view: View) -> list[float]:
    return suspicion(public_record(view))


def _size(prompt: Prompt, quest: int | None) -> int:
    sizes = (prompt.get("info") or {}).get("sizes")
    if quest is not None and sizes:
        return int(sizes[str(quest)])
    return int(prompt.get("pick") or 1)


def propose(view: View, prompt: Prompt, rng: random.Random) -> Action:
    """Good: itself and the seats least likely to be Evil. Evil: itself and trusted-looking Good seats,
    plus one mate when the quest needs two fails."""
    me = view["you"]["seat"]
    quest = rng.choice(prompt["quests"]) if prompt.get("quests") else None
    size = _size(prompt, quest)
    targets = list(prompt.get("targets") or [])
    if evil_side(view):
        evil, _ = known(view)
        public = _public_suspicion(view)
        others = sorted((s for s in targets if s != me and s not in evil), key=lambda s: (public[s], rng.random()))
        mates = [s for s in targets if s != me and s in evil]
        rng.shuffle(mates)
        need = _fails_needed(view, quest if quest is not None else _quest(view, prompt))
        others = mates[:need - 1] + others + mates[need - 1:]
    else:
        p = _public_suspicion(view) if _disguised(view, rng) else suspicion(view)
        others = sorted((s for s in targets if s != me), key=lambda s: (p[s], rng.random()))
    team = ([me] if me in targets else []) + others
    return Action(seat=me, kind=prompt["kind"], targets=tuple(sorted(team[:size])), quest=quest)


def _clean(p: list[float], seats: Any) -> float:
    out = 1.0
    for s in seats:
        out *= 1.0 - p[s]
    return out


def vote(view: View, prompt: Prompt, rng: random.Random, approve_rate: float) -> Action:
    """Good approves a team about as likely to be clean as the best it could pick (always the fifth
    team: its rejection hands Evil the game), never one with a player it knows to be Evil. Evil
    approves teams with enough Evil on them to fail the quest, and some others not to stand out."""
    me = view["you"]["seat"]
    team = list((prompt.get("info") or {}).get("team") or view.get("team") or [])
    evil, _ = known(view)
    last_chance = int(view.get("vote_track") or 0) >= 4
    if evil_side(view):
        on = len(set(team) & evil)
        if on >= _fails_needed(view, _quest(view)):
            approve = True
        elif last_chance:
            approve = False  # a fifth rejection wins the game for Evil
        else:
            approve = on > 0 or rng.random() < 0.25 * approve_rate
        return Action(seat=me, kind="vote", choice="approve" if approve else "reject")
    disguised = _disguised(view, rng)
    if disguised:
        evil, _ = known(public_record(view))
    if last_chance:
        approve = True
    elif set(team) & evil:
        approve = False
    elif view.get("leader") == me:
        approve = True
    else:
        p = suspicion(public_record(view)) if disguised else suspicion(view)
        others = sorted(s for s in range(int(view["players"])) if s != me)
        best = _clean(p, sorted(others, key=lambda s: p[s])[:max(0, len(team) - 1)])
        approve = _clean(p, team) >= APPROVE_RATIO * best
    return Action(seat=me, kind="vote", choice="approve" if approve else "reject")


def card(view: View, prompt: Prompt, rng: random.Random, fail_rate: float) -> Action:
    """Good plays a card counting as Success. Evil fails when the quest needs it; with a known mate on
    the team only the lowest seat of them fails (unless two fails are needed); otherwise it fails
    with ``fail_rate``, always when the quest decides the game."""
    me = view["you"]["seat"]
    cards = list(prompt.get("choices") or [])
    success = [c for c in cards if CARDS.get(c) == "success"]
    failing = [c for c in cards if CARDS.get(c) == "fail"]
    if evil_side(view) and failing:
        evil, _ = known(view)
        team = set(view.get("team") or [])
        need = _fails_needed(view, _quest(view))
        on = sorted(team & evil) or [me]
        passed, failed = score(view)
        if need >= 2:
            fail = True
        elif on[0] != me:
            fail = False
        else:
            fail = passed >= 2 or failed >= 2 or rng.random() < fail_rate
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
    """The Good players who acted as if they knew the Evil ones (rejected their teams, led clean ones)."""
    me = view["you"]["seat"]
    evil, _ = known(view)
    score = {s: rng.random() * 0.01 for s in prompt.get("targets") or [] if s != me}
    for p in view.get("proposals") or []:
        dirty = bool(set(p["team"]) & evil)
        if p["leader"] in score:
            score[p["leader"]] += -1.5 if dirty else 1.0
        for s, letter in enumerate(p.get("votes") or ""):
            if s in score and letter in "AR":
                score[s] += (1.0 if letter == "R" else -1.0) if dirty else (0.3 if letter == "A" else -0.3)
    pick = int(prompt.get("pick") or 1)
    ranked = sorted(score, key=lambda s: -score[s]) or list(prompt.get("targets") or [])
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
