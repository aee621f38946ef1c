"""What a Good simulated player must never do, given its own seat's view (shared by the policy tests)."""
from __future__ import annotations

from engine import policy
from engine.cards import CARDS


def harms_good(v: dict, action) -> str | None:
    """Why ``action`` can only hurt Good, given what this Good seat's view ``v`` says; None if it cannot."""
    evil, good = policy.known(v)
    kind = action.kind
    if kind == "play" and CARDS.get(action.choice) != "success" and any(CARDS.get(c) == "success"
                                                                        for c in v["you"]["cards"]):
        return "played a card that does not count as Success"
    if kind == "plot_no_confidence" and action.choice == "play" and v["vote_track"] >= 4:
        return "overruled the fifth team (Evil wins)"
    if kind == "vote" and action.choice == "reject" and v["vote_track"] >= 4:
        return "rejected the fifth team (Evil wins)"
    if kind == "excalibur" and action.targets and action.targets[0] in good:
        return "turned with Excalibur the card of a player it knows to be Good"
    if kind == "excalibur" and action.targets and set(v["team"]) <= good:
        return "used Excalibur on a team it knows to be all Good"
    if kind == "give_excalibur" and action.targets and action.targets[0] in evil and set(action.targets) != set(
            v["you"]["prompts"][0]["targets"]):
        return "gave Excalibur to a player it knows to be Evil"
    if v["you"]["role"] == "merlin" and sum(t["result"] is False for t in v["track"]) < 2:
        # Merlin's disguise: until Evil is one quest from winning he votes on what a Servant would know
        evil, good = policy.known({**v, "you": {**v["you"], "knowledge": [
            k for k in v["you"]["knowledge"] if k.get("source") != "reveal"]}})
    if kind == "vote" and action.choice == "approve" and set(v["team"]) & evil and v["vote_track"] < 4:
        return "approved a team with a player it knows to be Evil"
    return None
