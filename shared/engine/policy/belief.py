"""What a seat believes about the others, from its view alone: who it knows, and how likely each
other seat is to be Evil (and Merlin) given the public record, read through the policy itself.

:func:`known` reads the seat's knowledge (reveal, Lady of the Lake, loyalty cards...). :func:`suspicion`
weighs every way of completing the Evil side with seats the seat does not know (the usual number of
Evil players for the table size), and for each, every Good seat as Merlin, by how likely the public
record is when the policy plays those roles:

* quests: the policy's Evil fails a quest it is on with ``EVIL_FAILS`` (seldom the first quest), only
  one of the mates on a team fails unless two fails are needed (then each does), and always fails the
  quest that decides the game; a fail count a team could not produce is all but ruled out;
* teams: an Evil Leader picks as a Servant in his seat would (but puts a mate on a quest needing two
  fails); a Good Leader is on his own team;
* votes: the policy's Evil votes as the Good seats have (its votes tell nothing), except that it
  approves a team it is on that can fail the quest deciding the game (``decisive``); Merlin votes as a
  Servant would, except that he rejects a team with Evil he is on (not as its Leader): ``guide`` of the
  time, every time once Evil has two fails (then he rejects those he is off too, where the Good seats
  reject almost every team anyway: not read). How a Servant on the team votes is read off the table:
  the share of the other members (not the Leader) who voted so;
* Percival's two thumbs (one is Morgana when she is in play; Merlin is one of them).

:func:`merlin_odds` is also the Assassin's reading: for each Good seat, the log-likelihood ratio of its
votes as Merlin against as a Servant, given the Evil seats. The Assassin reads the votes after Evil's
second fail against the policy's own Servant in each seat (:func:`read_record` with ``rejects``): what
that Servant believed then (:class:`Moments` weighs the record once for every seat,
:func:`servant` reads one seat's belief off it, :func:`moment` is the view of that time); at five and six
players, there, Merlin's approval of a clean team he is on (which a doubting Servant rejects) reads too.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import exp, log
from typing import Any

from ..basics import SIDES_BY_PLAYERS

View = Mapping[str, Any]  # a seat's view (``engine.view``: a ``SeatView``), only read here

EVIL_FAILS = 0.85  # how often the policy's Evil fails a quest it need not (``decide``'s ``fail_rate``)
FIRST_QUEST_FAILS = 0.3  # ... on the first quest, as a share of that (a fail there shows a spy for little)
GUIDE = 0.1  # how often Merlin rejects a team he is on with an Evil player he saw, from three Evil players
# (at five and six players, never: there it passed no more quests and showed him); always once Evil has
# two fails
IMPOSSIBLE = 0.02  # a fail count the team could not produce (special cards, switched Lancelots...)
SLIP = 0.05  # the least likelihood of a vote against the policy's rule (a human seat may differ)
LOG_SLIP = log(SLIP)
PRIOR = 0.25  # how much a share of votes is pulled towards a half (few voters say little)
TABLE = 0.5  # the Assassin's reading of a Servant's vote once Evil has two fails: this much the table's
# votes (a human seat), the rest the policy's Servant rule


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


def _score_before(view: View, round_: int) -> tuple[int, int]:
    """(quests passed, quests failed) before round ``round_``."""
    done = [q.get("success") for q in view.get("quests") or [] if q["round"] < round_]
    return done.count(True), done.count(False)


def numbered(view: View) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """The view's proposals, each with its number in its round (0 for the first; 4 for the fifth)."""
    index: dict[int, int] = {}
    for p in view.get("proposals") or []:
        index[p["round"]] = index.get(p["round"], -1) + 1
        yield index[p["round"]], p


def crowded(view: View) -> bool:
    """Whether the table has three Evil players or more (seven seats or more): one vote is one of many."""
    return evil_total(view) >= 3


def guide(view: View) -> float:
    """How often Merlin rejects a team with Evil he is on, before Evil has two fails (``GUIDE``)."""
    return GUIDE if crowded(view) else 0.0


def decisive(passed: int, failed: int) -> bool:
    """Whether the quest to come decides the game (one side is one quest from winning)."""
    return passed >= 2 or failed >= 2


def fails_needed(view: View, quest: int | None) -> int:
    """How many Fails quest ``quest`` needs to fail (1 when the track does not say)."""
    track = view.get("track") or []
    if quest is None or not 0 <= quest < len(track):
        return 1
    return int(track[quest].get("fails_needed") or 1)


def _quest_odds(view: View) -> list[tuple[int, list[float]]]:
    """Per quest played: (its team, the log-likelihood of its fail count for each number of Evil on it)."""
    double = "oberon" in (view.get("roles_in_play") or [])  # Oberon knows no mate: two may fail
    out = []
    for q in view.get("quests") or []:
        team = list(q["team"])
        fails = int(q.get("fails") or 0)
        need = int(q.get("fails_needed") or fails_needed(view, q["quest"]))
        passed, failed = _score_before(view, q["round"])
        first = not passed and not failed
        rate = 1.0 if decisive(passed, failed) else EVIL_FAILS * (FIRST_QUEST_FAILS if first else 1.0)
        rate = min(1.0 - IMPOSSIBLE, max(IMPOSSIBLE, rate))
        odds = []
        for on in range(len(team) + 1):
            if fails > on:
                odds.append(log(IMPOSSIBLE))
            elif need >= 2:  # every Evil member fails
                odds.append(0.0 if fails == on else log(IMPOSSIBLE))
            elif on == 0:
                odds.append(0.0)
            else:
                one = {0: 1.0 - rate, 1: rate}.get(fails, rate * 0.3 if double else IMPOSSIBLE)
                odds.append(log(one))
        out.append((_mask(team), odds))
    return out


@dataclass(frozen=True)
class Record:
    """The public record, read for the roles' likelihoods. ``votes``: per proposal whose votes say anything
    of Merlin, its team and per seat the log-likelihood ratio of its vote as Merlin against as a Servant if
    the team holds Evil, and if it is clean (only in the Assassin's reading, ``read_record`` with
    ``rejects``: Merlin approves a clean team he is on once Evil has two fails). ``decisive``: per decisive
    proposal, its team, the fails it needs and per member the ratio of its vote as Evil against as a
    Servant if the team can fail its quest. ``leaders``: per proposal, who led what."""
    votes: list[tuple[int, list[float], list[float]]]  # (team, if it holds Evil, if it is clean)
    decisive: list[tuple[int, int, list[float]]]  # (team, fails needed, per seat)
    leaders: list[tuple[int, int, int]]  # every proposal: (team, Leader, fails needed)


def _share(letters: Sequence[str], letter: str) -> float:
    """The share of ``letters`` equal to ``letter``, pulled towards a half (few voters say little)."""
    return (sum(x == letter for x in letters) + PRIOR) / (len(letters) + 2 * PRIOR)


def moment(view: View, k: int, seat: int) -> View:
    """The view a Servant in ``seat`` had when the view's ``k``-th proposal was put to the vote."""
    proposals = list(view.get("proposals") or [])
    p = proposals[k]
    done = {q["quest"]: q["success"] for q in view.get("quests") or [] if q["round"] < p["round"]}
    return {**view, "round": p["round"], "leader": p["leader"], "team": list(p["team"]), "quest": p["quest"],
            "vote_track": sum(q["round"] == p["round"] for q in proposals[:k]), "proposals": proposals[:k],
            "quests": [q for q in view.get("quests") or [] if q["round"] < p["round"]],
            "track": [{**t, "result": done.get(t["quest"])} for t in view.get("track") or []],
            "you": {"seat": seat, "side": "good", "role": "servant", "knowledge": []}}


def read_record(view: View, rejects: Callable[[int, int], bool] | None = None) -> Record:
    """The view's proposals and votes, read (see :class:`Record`). With ``rejects`` (whether a Servant in
    a seat would reject the ``k``-th proposal: the Assassin's reading), a seat's vote on a team it is on
    once Evil has two fails is weighed against that (``TABLE``) rather than against the table's votes
    alone, on a clean team too."""
    n = int(view["players"])
    rows: list[tuple[int, list[float], list[float]]] = []
    deciding: list[tuple[int, int, list[float]]] = []
    leaders: list[tuple[int, int, int]] = []
    early = guide(view)
    approves = rejects is not None and not crowded(view)  # Merlin's approval of a clean team he is on
    for index, (number, p) in enumerate(numbered(view)):
        passed, failed = _score_before(view, p["round"])
        leaders.append((_mask(p["team"]), int(p["leader"]), fails_needed(view, p["quest"])))
        votes = (p.get("votes") or "")[:n]
        if not votes:
            continue
        team = set(p["team"])
        fifth = number >= 4
        d, c = [0.0] * n, [0.0] * n
        g = 1 - SLIP if failed >= 2 else early  # Merlin rejects a team with Evil he is on (read as all but
        # always once Evil has two fails: a human seat may differ)
        if g and not fifth:
            members = [s for s in team if s < len(votes) and votes[s] in "AR" and s != p["leader"]]
            for s in members:
                no = _share([votes[t] for t in members if t != s], "R")  # how likely a Servant there rejects
                if rejects is not None and failed >= 2 and (approves or votes[s] == "R"):
                    no = TABLE * no + (1 - TABLE) * (1 - SLIP if rejects(index, s) else SLIP)
                    if approves:
                        c[s] = log(SLIP / no) if votes[s] == "R" else log((1 - SLIP) / (1 - no))
                d[s] = log((g + (1 - g) * no) / no) if votes[s] == "R" else log(1 - g)
        if any(d) or any(c):
            rows.append((_mask(team), d, c))
        if decisive(passed, failed) and not fifth:  # an Evil member approves a team that can fail
            on = [votes[s] for s in team if s < len(votes) and votes[s] in "AR"]
            yes = _share(on, "A")
            evil_yes = [0.0] * n
            for s in team:
                if s < len(votes) and votes[s] in "AR":
                    evil_yes[s] = -log(yes) if votes[s] == "A" else LOG_SLIP
            deciding.append((_mask(team), fails_needed(view, p["quest"]), evil_yes))
    return Record(rows, deciding, leaders)


def merlin_odds(record: Record, evil: int, seats: Sequence[int]) -> dict[int, float]:
    """For each of ``seats``, the log-likelihood ratio of its votes as Merlin against as a Servant, when the
    Evil seats are the bits of ``evil``."""
    out = {s: 0.0 for s in seats}
    for team, dirty, clean in record.votes:
        row = dirty if team & evil else clean
        for s in seats:
            out[s] += row[s]
    return out


def _odd_lead(team: int, leader: int, need: int, evil: int) -> bool:
    """Whether a lead goes against the policy when the Evil seats are the bits of ``evil``: an Evil Leader
    picks a team as a Servant in his seat would, but puts a mate on it when the quest needs two fails; a
    Good Leader is on his own team."""
    if evil >> leader & 1:
        return need >= 2 and (team & evil).bit_count() < min(need, evil.bit_count())
    return not team >> leader & 1


def _decisive_odds(total: float, record: Record, evil: int) -> float:
    """``total`` plus the log-likelihood ratio of the decisive votes when the Evil seats are the bits of
    ``evil``."""
    for team, need, row in record.decisive:
        if (team & evil).bit_count() >= need:
            for s in range(len(row)):
                if evil >> s & 1:
                    total += row[s]
    return total


def _evil_odds(record: Record, evil: int) -> float:
    """The log-likelihood ratio of the proposals (``_odd_lead``) and decisive votes when the Evil seats are
    the bits of ``evil``."""
    total = 0.0
    for team, leader, need in record.leaders:
        if _odd_lead(team, leader, need, evil):
            total += LOG_SLIP
    return _decisive_odds(total, record, evil)


def _thumbs(view: View) -> list[int]:
    """The seats Percival saw (Merlin, and Morgana when she is in play); none for anyone else."""
    return [k["seat"] for k in view["you"].get("knowledge") or []
            if k.get("label") in ("merlin_or_morgana", "merlin") and k.get("seat") is not None]


def _merlins(view: View, n: int, thumbs: list[int]) -> int:
    """The seats that may be Merlin as this seat sees it (all but itself; Percival: his thumbs), 0 if none."""
    if "merlin" not in (view.get("roles_in_play") or []):
        return 0
    if thumbs:
        return _mask(thumbs)
    return ((1 << n) - 1) & ~(1 << int(view["you"]["seat"]))


Hypothesis = tuple[int, float, dict[int, float]]  # Evil seats (bits), log-likelihood, Merlin's per seat


def _hypotheses(view: View, evil: set[int], unknown: list[int], may_be_merlin: int) -> list[Hypothesis]:
    """Every way of completing the Evil side ``evil`` with seats of ``unknown`` (the usual number of Evil
    players), with the log-likelihood of the public record for it but its votes as Merlin's, and for each
    seat of ``may_be_merlin`` outside it the log-likelihood ratio of those as Merlin (see :func:`suspicion`)."""
    n = int(view["players"])
    missing = max(0, min(len(unknown), evil_total(view) - len(evil)))
    quests = _quest_odds(view)
    thumbs = _thumbs(view)
    pair = _mask(thumbs) if len(thumbs) == 2 and "morgana" in (view.get("roles_in_play") or []) else 0
    record = read_record(view)
    base = _mask(evil)
    impossible = log(IMPOSSIBLE)
    candidates = [s for s in range(n) if may_be_merlin >> s & 1]
    hypotheses: list[Hypothesis] = []
    for extra in combinations(unknown, missing):
        m = base | _mask(extra)
        loglik = 0.0
        for team, fail_odds in quests:
            loglik += fail_odds[(team & m).bit_count()]
        if pair and (pair & m).bit_count() != 1:
            loglik += impossible
        loglik += _evil_odds(record, m)
        merlins = [s for s in candidates if not m >> s & 1]
        hypotheses.append((m, loglik, merlin_odds(record, m, merlins)))
    return hypotheses


def _marginals(hypotheses: Sequence[Hypothesis], n: int, seat: int | None = None) -> list[float] | None:
    """For every seat, the share of the hypotheses' weight in which it is Evil, each weighed with any of
    its Merlin seats as Merlin; given that ``seat`` is neither Evil nor Merlin, when given. None if no
    hypothesis is left."""
    skip = 0 if seat is None else 1 << seat
    kept = []
    for m, loglik, as_merlin in hypotheses:
        if m & skip:
            continue
        odds = [x for s, x in as_merlin.items() if s != seat]
        if odds:
            top = max(odds)
            loglik += top + log(sum(exp(x - top) for x in odds) / len(odds))
        kept.append((m, loglik))
    return weigh(kept, n)


def weigh(weighted: Sequence[tuple[int, float]], n: int) -> list[float] | None:
    """For every seat, the share of the weight of ``weighted`` (Evil seats as bits, log-likelihood) in which
    it is Evil; None if there is none."""
    if not weighted:
        return None
    top = max(ll for _, ll in weighted)
    totals = [0.0] * n
    mass = 0.0
    for m, ll in weighted:
        w = exp(ll - top)
        mass += w
        for s in range(n):
            if m >> s & 1:
                totals[s] += w
    return [t / mass for t in totals]


def suspicion(view: View) -> list[float]:
    """For every seat, the probability that it is Evil, as this seat's view suggests."""
    n = int(view["players"])
    evil, good = known(view)
    unknown = [s for s in range(n) if s not in evil and s not in good]
    may_be_merlin = _merlins(view, n, _thumbs(view)) & ~_mask(evil)
    out = _marginals(_hypotheses(view, evil, unknown, may_be_merlin), n) or [float(s in evil) for s in range(n)]
    for s in range(n):
        if s in evil or s in good:
            out[s] = float(s in evil)
    return out


class Moments:
    """Every way of seating the Evil side on the record of each moment of the view (:func:`moment`), as
    :func:`suspicion` weighs it for a seat that knows nothing (any seat may be Merlin); :func:`servant`
    reads one seat's belief off it. Asked for proposals in increasing order (``at``), it carries each sum on
    from the moment before (each moment's record is a prefix of the next's), in the same order: the same
    numbers as afresh, for about one moment's work in all."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.n = int(view["players"])
        self.merlin = "merlin" in (view.get("roles_in_play") or [])
        self.masks = [_mask(extra) for extra in combinations(range(self.n), min(self.n, evil_total(view)))]
        self.quest_sums, self.lead_sums = [0.0] * len(self.masks), [0.0] * len(self.masks)
        self.merlin_sums = [[0.0] * self.n for _ in self.masks]  # per seating, per seat: its votes as Merlin's
        self.done = (0, 0, 0)  # the quests, leads and vote rows summed so far

    def at(self, k: int) -> list[Hypothesis]:
        """The hypotheses when the view's ``k``-th proposal was put to the vote (``k`` never below the last)."""
        n, (quests_done, leads_done, rows_done) = self.n, self.done
        then = moment(self.view, k, 0)
        quests, record = _quest_odds(then), read_record(then)
        table: list[Hypothesis] = []
        for i, m in enumerate(self.masks):
            for team, fail_odds in quests[quests_done:]:
                self.quest_sums[i] += fail_odds[(team & m).bit_count()]
            for team, leader, need in record.leaders[leads_done:]:
                if _odd_lead(team, leader, need, m):
                    self.lead_sums[i] += LOG_SLIP
            sums = self.merlin_sums[i]
            for team, dirty, clean in record.votes[rows_done:]:
                row = dirty if team & m else clean
                for s in range(n):
                    sums[s] += row[s]
            loglik = self.quest_sums[i] + _decisive_odds(self.lead_sums[i], record, m)
            table.append((m, loglik, {s: sums[s] for s in range(n) if self.merlin and not m >> s & 1}))
        self.done = (len(quests), len(record.leaders), len(record.votes))
        return table


def servant(hypotheses: Sequence[Hypothesis], n: int, seat: int) -> list[float]:
    """What a Servant in ``seat`` believes (:func:`suspicion`), from one moment's :class:`Moments`."""
    p = _marginals(hypotheses, n, seat) or [0.0] * n
    p[seat] = 0.0
    return p
