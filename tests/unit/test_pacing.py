"""How long an invocation waits for the bots' next move (``gamebot.core.pacing``): only for a move due
soon, within the chain's cap, and never past the invocation's own time less the step's reserve."""
from __future__ import annotations

from gamebot.core.pacing import CHAIN, SOON, STEP_RESERVE, Pace, follow, waits
from gamebot.handlers.handling import Job

NOW = 1_800_000_000.0


def job_due(*turns: tuple[int, float]) -> Job:
    job = Job(update=None, update_id=None)
    job.bots.update({chat: int(due) for chat, due in turns})
    return job


def test_a_move_due_soon_is_waited_for_and_one_due_later_is_left_to_the_alarm():
    pace = Pace()
    assert waits(pace, job_due((-1, NOW + 3)), NOW, None) == 3
    assert waits(pace, job_due((-1, NOW - 2)), NOW, None) == 0  # already due: at once
    assert waits(pace, job_due((-1, NOW + SOON + 1)), NOW, None) is None
    assert waits(pace, Job(update=None, update_id=None), NOW, None) is None  # no bot has a decision
    assert waits(pace, job_due((-1, NOW + 4), (-2, NOW + 2)), NOW, None) == 2  # the earliest chat first


def test_the_chain_and_the_invocation_s_time_bound_the_waits():
    pace = Pace()
    assert waits(pace, job_due((-1, NOW + 3)), NOW, None, waited=CHAIN - 3) == 3
    assert waits(pace, job_due((-1, NOW + 3)), NOW, None, waited=CHAIN - 2) is None
    assert waits(pace, job_due((-1, NOW + 3)), NOW, until=NOW + 3 + STEP_RESERVE) == 3
    assert waits(pace, job_due((-1, NOW + 3)), NOW, until=NOW + 3 + STEP_RESERVE - 0.5) is None
    assert waits(Pace(soon=0), job_due((-1, NOW + 3)), NOW, None) is None  # (the playground: never)


def test_follow_stops_when_the_next_move_is_not_played_and_still_the_same():
    """A turn the step did not play (say the session moved on in a way that keeps it) is not retried in a
    loop: the chat's alarm sees to it."""
    now = [NOW]
    calls: list[dict] = []

    class Timers:
        async def fire(self, payload: dict, job: Job) -> str:
            calls.append(payload)
            job.bots[-1] = int(NOW + 3)  # still the same turn
            return "stale"

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    import asyncio

    played = asyncio.run(follow(Timers(), Pace(sleep=sleep), lambda: now[0], job_due((-1, NOW + 3)), None))  # type: ignore[arg-type]
    assert played == 0 and len(calls) == 1 and now[0] == NOW + 3
