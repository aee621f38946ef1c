"""How a simulated player decides, from its own seat's view only (``engine.view(state, seat)``).

:func:`decide` is given that one dict, what the seat may know: its role, side and knowledge
(``you``), its prompts, and the public table. It never sees the game state, so it cannot play on
what its seat does not know. It plays plausibly for its side, so that practising against bots
teaches the rules:

* Good puts itself and people it does not know to be Evil on teams, rejects a team with someone it
  knows to be Evil (except the fifth team of a round: its rejection would hand Evil the game), plays
  a card counting as Success, turns a card with Excalibur only when it knows its player is Evil,
  examines or targets someone it knows nothing about;
* Evil approves teams with Evil on them, fails quests (``fail_rate``), turns a Good card with
  Excalibur, assassinates someone it does not know to be Evil.

Any prompt a plug-in adds gets a random legal answer (sparing the seat itself where it can).
"""
from __future__ import annotations

import random
from typing import Any

from .cards import CARDS
from .models import Action, GameState
from .views import view

View = dict[str, Any]


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
    return evil, good


def _evil(view: View) -> bool:
    return bool(view["you"]["side"] == "evil")


def _size(prompt: dict[str, Any], quest: int | None) -> int:
    sizes = (prompt.get("info") or {}).get("sizes")
    if quest is not None and sizes:
        return int(sizes[str(quest)])
    return int(prompt.get("pick") or 1)


def _team(view: View, prompt: dict[str, Any], rng: random.Random) -> Action:
    me = view["you"]["seat"]
    quest = rng.choice(prompt["quests"]) if prompt.get("quests") else None
    size = _size(prompt, quest)
    evil, good = known(view)
    others = [s for s in prompt.get("targets") or [] if s != me]
    rng.shuffle(others)
    if _evil(view):  # one mate at most: two Evil on a team are easy to spot
        mates = [s for s in others if s in evil]
        others = mates[:1] + [s for s in others if s not in evil] + mates[1:]
    else:
        others.sort(key=lambda s: (s in evil, s not in good))
    team = ([me] if me in (prompt.get("targets") or []) else []) + others
    return Action(seat=me, kind=prompt["kind"], targets=tuple(sorted(team[:size])), quest=quest)


def _vote(view: View, prompt: dict[str, Any], rng: random.Random, approve_rate: float) -> Action:
    me = view["you"]["seat"]
    team = set((prompt.get("info") or {}).get("team") or view.get("team") or [])
    evil, _ = known(view)
    last_chance = int(view.get("vote_track") or 0) >= 4
    if _evil(view):
        approve = bool(team & evil) or (not last_chance and rng.random() < 0.3)
    elif last_chance:
        approve = True
    elif team & evil:
        approve = False
    else:
        approve = me in team or rng.random() < approve_rate
    return Action(seat=me, kind="vote", choice="approve" if approve else "reject")


def _card(view: View, prompt: dict[str, Any], rng: random.Random, fail_rate: float) -> Action:
    me = view["you"]["seat"]
    cards = list(prompt.get("choices") or [])
    success = [c for c in cards if CARDS.get(c) == "success"]
    failing = [c for c in cards if CARDS.get(c) == "fail"]
    if _evil(view) and failing and rng.random() < fail_rate:
        return Action(seat=me, kind="play", choice=rng.choice(failing))
    return Action(seat=me, kind="play", choice=rng.choice(success or cards))


def _excalibur(view: View, prompt: dict[str, Any], rng: random.Random) -> Action:
    me = view["you"]["seat"]
    evil, good = known(view)
    targets = [s for s in prompt.get("targets") or [] if s != me]
    if _evil(view):
        pick = [s for s in targets if s not in evil]
        if pick and rng.random() < 0.6:
            return Action(seat=me, kind=prompt["kind"], targets=(rng.choice(pick),))
    else:  # Good turns a card only when it knows that player is Evil: anything else may only hurt Good
        pick = [s for s in targets if s in evil]
        if pick:
            return Action(seat=me, kind=prompt["kind"], targets=(rng.choice(pick),))
    return Action(seat=me, kind=prompt["kind"], choice="pass")


def _pick(view: View, prompt: dict[str, Any], rng: random.Random) -> Action:
    """A choice of players: Good gives to people it trusts, everyone looks at or targets people it knows
    nothing about; Evil hands things to its mates."""
    me = view["you"]["seat"]
    evil, good = known(view)
    targets = list(prompt.get("targets") or [])
    quest = rng.choice(prompt["quests"]) if prompt.get("quests") else None
    size = _size(prompt, quest) if prompt.get("quests") else int(prompt.get("pick") or 1)
    giving = prompt["kind"].startswith("give")
    if giving:
        friends = evil if _evil(view) else good
        ranked = sorted(targets, key=lambda s: (s not in friends or s == me, s in (good if _evil(view) else evil),
                                                rng.random()))
    else:  # a look or a target: someone unknown, never itself
        ranked = sorted(targets, key=lambda s: (s == me, s in evil or s in good, rng.random()))
    return Action(seat=me, kind=prompt["kind"], targets=tuple(sorted(ranked[:size])), quest=quest)


def decide(view: View, rng: random.Random, *, fail_rate: float = 0.6, approve_rate: float = 0.6,
           prompt: dict[str, Any] | None = None) -> Action | None:
    """This seat's answer to ``prompt`` (default: its first prompt), from its view alone; None when it
    has nothing to decide."""
    prompts = view["you"].get("prompts") or []
    if prompt is None:
        if not prompts:
            return None
        prompt = prompts[0]
    kind = prompt["kind"]
    me = view["you"]["seat"]
    if kind == "propose":
        return _team(view, prompt, rng)
    if kind == "vote":
        return _vote(view, prompt, rng, approve_rate)
    if kind == "play":
        return _card(view, prompt, rng, fail_rate)
    if kind == "excalibur":
        return _excalibur(view, prompt, rng)
    if prompt.get("pick"):
        if prompt.get("optional") and rng.random() < 0.3:
            return Action(seat=me, kind=kind, choice="pass")
        return _pick(view, prompt, rng)
    choices = list(prompt.get("choices") or [])
    if kind == "assassin_target" and not _evil(view):
        return Action(seat=me, kind=kind, choice=rng.choice(choices))
    if prompt.get("optional") and (not choices or rng.random() < 0.3):
        return Action(seat=me, kind=kind, choice="pass")
    return Action(seat=me, kind=kind, choice=rng.choice(choices))


def bot_move(state: GameState, seat: int, rng: random.Random) -> Action | None:
    """The move of the bot playing ``seat``: :func:`decide` on that seat's view alone (None: nothing to do)."""
    return decide(view(state, seat), rng)
