"""Merlin: Good; sees the agents of Evil (not Mordred) at the reveal. Evil wins if the Assassin names him."""
from ..basics import SIDES_BY_PLAYERS, Side
from ..plugin import ROLES, Role, issue, register
from ..reveal import RevealStep, register_step

# "Minions of Mordred, extend your thumb so that Merlin will know of you" / "Merlin, open your eyes".
register_step(RevealStep(id="merlin", order=30, label="evil"))


@register
class Merlin(Role):
    id = "merlin"
    side = Side.GOOD
    shows_in = frozenset({"percival"})
    looks_in = frozenset({"merlin"})

    def validate(self, config):
        if "assassin" in config.roles:
            return []
        designated = config.assassin
        if designated is None:
            return []  # the engine designates a Minion or another Evil character
        role = ROLES.get(designated)
        if role is None or role.side is not Side.EVIL:
            return [
                issue(
                    "error",
                    "assassin_not_evil",
                    "The character who assassinates Merlin must be an Evil character.",
                    role=designated,
                )
            ]
        if not role.filler and designated not in config.roles:
            return [
                issue(
                    "error",
                    "assassin_not_in_play",
                    f"'{designated}' is not in this game, so cannot assassinate.",
                    role=designated,
                )
            ]
        evil_seats = SIDES_BY_PLAYERS.get(config.players, (0, 0))[1]
        evil_chosen = sum(1 for r in config.roles if r in ROLES and ROLES[r].side is Side.EVIL)
        if role.filler and evil_chosen >= evil_seats:
            return [
                issue(
                    "error",
                    "assassin_not_in_play",
                    f"Every Evil seat holds a special character, so no '{designated}' can assassinate.",
                    role=designated,
                )
            ]
        return []
