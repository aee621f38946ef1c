"""A spammer's repeated presses during a vote cost no write to the chat's item, so honest votes never
collide with them (``uow.UnitOfWork.commit``: a refused or repeated press writes nothing).

Two Lambda containers against the moto server (``tests/reliability/spam.py``): the spammer votes, then
presses Approve 30 more times in one container while the six other players vote in the other, each
honest vote released together with a few of the spam presses. Before, every repeated press wrote the
chat's item as read (to record its update id): 30 more versions, and honest votes failed their version
check and retried."""
from __future__ import annotations

import pytest

from tests.reliability.spam import spam_during_vote


@pytest.mark.slow
def test_thirty_repeated_presses_cost_no_write_and_no_honest_vote_retries(moto_endpoint, fake_server):
    outcome = spam_during_vote(moto_endpoint, fake_server, presses=30)
    assert outcome.counted  # every vote counted once, and the vote resolved
    assert sum(outcome.answers.values()) == 30
    assert all("already voted" in text or "out of date" in text for text in outcome.answers), outcome.answers
    assert outcome.spam.writes("chat") == 0  # no write of the chat's item...
    assert sum(n for (op, _), n in outcome.spam.requests.items() if op != "GetItem") == 0  # ...nor of anything
    assert outcome.spam.requests[("GetItem", "chat")] == 30  # one read each
    assert outcome.honest.conflicts["chat"] == 0  # no honest vote failed its version check
    # the item moved by the honest container's writes alone: a vote each, and the ack of the result's delivery
    assert outcome.chat_versions == outcome.honest.writes("chat") == outcome.honest_votes + 1
