"""How a simulated player decides, from its own seat's view only (``engine.view(state, seat)``).

:func:`decide` is given that one dict, what the seat may know: its role, side and knowledge
(``you``), its prompts, and the public table. It never sees the game state, so it cannot play on
what its seat does not know. It plays for its side (``moves``), on what it believes (``belief``):

* its belief (``belief.suspicion``) weighs every way of seating the Evil side the seat does not know, and
  every Good seat as Merlin, by how likely the public record is when the policy plays those roles:
  the quests' fail counts, the Leaders' teams, the votes (read against the table's own votes, as Merlin
  against as a Servant), Percival's thumbs and the seat's knowledge (Lady of the Lake...);
* Good puts itself and the least suspect seats on teams, approves teams nearly as clean as the best it
  could pick (on a quest deciding the game, only about as clean), never one with a player it knows to be
  Evil or one its Leader left himself off (but the fifth team of a round: its rejection hands Evil the
  game), plays a card counting as Success, turns a card with Excalibur only on a player it knows (or all
  but knows) to be Evil, looks with the Lady at the seat it is least sure of, and overrules an approved
  team with No Confidence only when it knows an Evil player is on it (never as the fifth rejection).
  Once a failed quest gives Evil the game, Good approves only a team it thinks more likely safe than
  not (``moves.LAST_STAND``).
  Merlin leads and votes as a Servant in his seat would, but from three Evil players he rejects a team
  he is on with an Evil player he saw some of the time (``belief.GUIDE``); once Evil has two fails, he
  rejects every team with Evil and, with two Evil players, approves a team he is on without;
* Evil hides: it leads as a Servant in its seat would on the same record (a mate on the team when two
  fails are needed), votes as the Good seats at the table have voted, on the team or off it (its own
  team approved when that quest decides the game), fails quests
  (seldom the first; only one of the known mates on a team does, unless two fails are needed; always
  when the quest decides the game), turns a Good card with Excalibur, overrules teams without Evil
  (always the fifth), and assassinates the Good seat whose votes read most as Merlin's against as a
  Servant's (``belief.merlin_odds``; after Evil's second fail, against the policy's Servant in that seat).

Any other prompt a plug-in adds gets a legal answer (sparing the seat itself where it can).
:func:`ai_seat_move` and :func:`play_to_end` (``drive``) run the policy on a game state, seat by seat,
through ``view``.
"""
from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from ..models import Action
from . import moves
from .belief import EVIL_FAILS, known, suspicion
from .drive import ai_seat_move, play_random_game, play_to_end

View = Mapping[str, Any]  # a seat's view (``engine.view``: a ``SeatView``), only read here

__all__ = ["ai_seat_move", "decide", "known", "play_random_game", "play_to_end", "suspicion"]


def decide(view: View, rng: random.Random, *, fail_rate: float = EVIL_FAILS,
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
        return moves.propose(view, prompt, rng)
    if kind == "vote":
        return moves.vote(view, prompt, rng)
    if kind == "play":
        return moves.card(view, prompt, rng, fail_rate)
    if kind == "excalibur":
        return moves.excalibur(view, prompt, rng)
    if kind == "assassinate" and moves.evil_side(view):
        return moves.assassinate(view, prompt, rng)
    if (prompt.get("info") or {}).get("card") == "no_confidence" and prompt.get("optional"):
        return moves.overrule(view, prompt)
    if prompt.get("pick"):
        if prompt.get("optional") and rng.random() < 0.3:
            return Action(seat=me, kind=kind, choice="pass")
        return moves.pick(view, prompt, rng)
    choices = list(prompt.get("choices") or [])
    if kind == "assassin_target" and not moves.evil_side(view):
        return Action(seat=me, kind=kind, choice=rng.choice(choices))
    if prompt.get("optional") and (not choices or rng.random() < 0.3):
        return Action(seat=me, kind=kind, choice="pass")
    return Action(seat=me, kind=kind, choice=rng.choice(choices))
