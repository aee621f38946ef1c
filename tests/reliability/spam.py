"""A spammer during a vote, against honest voters, in separate Lambda containers (the reliability tests'
``Container``: its own event loop, Bot, DynamoDB client and service) on the moto server and the fake Bot
API: shared by ``tests/reliability/test_spam_presses.py`` (which asserts) and ``scripts/bench_spam.py``
(which prints the figures).

One player votes, then presses Approve again and again in one container while the others vote, one
after the other, in another container. Each honest vote and a few of the spammer's presses are released
together (a barrier), so that they really overlap: a spam press that wrote the chat's item between an
honest vote's read and its write made that write fail its version check (a conflict, then a retry from a
fresh read). Every request each container makes to DynamoDB is counted by the item it names.
"""
from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from gamebot.storage.session import Session, chat_key
from localdev import updates as U
from localdev.autoplay import Policy
from tests.reliability.support import Container, ContainerTable, RobustDriver, create_table, until_vote

PLAYERS = list(range(1, 8))


def _keys(params: dict[str, Any]) -> list[str]:
    """The items a DynamoDB request names."""
    if "Key" in params:
        return [params["Key"]["pk"]["S"]]
    if "Item" in params:
        return [params["Item"]["pk"]["S"]]
    found = []
    for entry in params.get("TransactItems") or []:
        for op in entry.values():
            item = op.get("Item") or op.get("Key") or {}
            if "pk" in item:
                found.append(item["pk"]["S"])
    return found


class Counted:
    """A container's DynamoDB client that counts its requests: ``(operation, kind of item)`` -> count,
    and the writes that failed their condition (a version conflict) by kind of item."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.requests: Counter[tuple[str, str]] = Counter()
        self.conflicts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def _count(self, op: str, params: dict[str, Any]) -> list[str]:
        kinds = [k.split("#")[0] for k in _keys(params)]
        with self._lock:
            for kind in kinds:
                self.requests[(op, kind)] += 1
        return kinds

    def _call(self, op: str, method: str, params: dict[str, Any]) -> Any:
        kinds = self._count(op, params)
        try:
            return getattr(self.client, method)(**params)
        except Exception as exc:
            code = str((getattr(exc, "response", None) or {}).get("Error", {}).get("Code", ""))
            if code in ("ConditionalCheckFailedException", "TransactionCanceledException"):
                with self._lock:
                    for kind in kinds:
                        self.conflicts[kind] += 1
            raise

    def get_item(self, **params: Any) -> Any:
        return self._call("GetItem", "get_item", params)

    def put_item(self, **params: Any) -> Any:
        return self._call("PutItem", "put_item", params)

    def update_item(self, **params: Any) -> Any:
        return self._call("UpdateItem", "update_item", params)

    def delete_item(self, **params: Any) -> Any:
        return self._call("DeleteItem", "delete_item", params)

    def transact_write_items(self, **params: Any) -> Any:
        return self._call("TransactWriteItems", "transact_write_items", params)

    def start(self, op: str, params: dict[str, Any]) -> Any:  # a read started ahead (``DynamoDB.start``)
        self._count(op, params)
        return self.client.start(op, params)

    def writes(self, kind: str) -> int:
        """Write requests that named an item of ``kind`` (``chat``, ``refused``...), failed ones included."""
        return sum(n for (op, k), n in self.requests.items() if k == kind and op != "GetItem")


@dataclass
class Outcome:
    """What the spam and the honest votes cost (``Counted`` of each container, the vote's result)."""

    spam_presses: int
    honest_votes: int
    spam: Counted
    honest: Counted
    answers: Counter[str] = field(default_factory=Counter)  # what the spammer was told
    counted: bool = False  # every honest vote was counted once, and the vote resolved
    chat_versions: int = 0  # how far the chat item's version moved during the spam


def _press(container: Container, fake: Any, user: int, group: int, message_id: int, data: str) -> str:
    """``user`` presses the button: handled as the webhook does (its chat read ahead); the answer's text."""
    update = U.press(U.user(user), fake.message(group, message_id), data)
    with container.service.reading_ahead(update):
        answer = container.loop.run_until_complete(container.service.handle_update(update))
    assert answer.status == 200, answer.status
    return (answer.method or {}).get("text", "")


def spam_during_vote(endpoint: str, fake: Any, presses: int = 30, seed: int = 5, group: int = -1005000000001
                     ) -> Outcome:
    """Play to the first vote, then let ``PLAYERS[-1]`` vote and press Approve ``presses`` more times while
    the other players vote one after the other (see the module's docstring)."""
    fake.reset()
    table_name = f"spam-{random.getrandbits(32):x}"
    create_table(endpoint, table_name)
    honest = Container(endpoint, fake, table_name, seeds=random.Random(seed))
    spammer = Container(endpoint, fake, table_name, seeds=random.Random(seed + 1))
    try:
        table = ContainerTable(fake, honest, group)
        table.open_lobby(PLAYERS)
        table.press_label(PLAYERS[0], group, "Start")
        driver = RobustDriver(table, group, PLAYERS, Policy(rng=random.Random(seed)), status=table.status)
        vote = until_vote(driver, table, group)
        assert vote is not None, "no vote opened"
        approve = next(b["data"] for row in vote["buttons"] for b in row if "Approve" in b["text"])
        spammer_id, voters = PLAYERS[-1], PLAYERS[:-1]
        _press(spammer, fake, spammer_id, group, vote["message_id"], approve)  # the spammer's own vote
        counted = [Counted(c.service.repo.client) for c in (spammer, honest)]
        spammer.service.repo._client, honest.service.repo._client = counted
        outcome = Outcome(presses, len(voters), *counted)
        version = honest.service.repo.get(chat_key(group)).version
        per_round = [presses // len(voters) + (1 if i < presses % len(voters) else 0) for i in range(len(voters))]
        for voter, burst in zip(voters, per_round, strict=True):
            barrier = threading.Barrier(2)

            def spam(burst: int = burst, barrier: threading.Barrier = barrier) -> None:
                barrier.wait()
                for _ in range(burst):
                    outcome.answers[_press(spammer, fake, spammer_id, group, vote["message_id"], approve)] += 1

            thread = threading.Thread(target=spam)
            thread.start()
            barrier.wait()
            _press(honest, fake, voter, group, vote["message_id"], approve)
            thread.join()
        after = honest.service.repo.get(chat_key(group))
        outcome.chat_versions = after.version - version
        state = Session.from_body(after.body).game()
        proposal = state.proposals[-1]
        outcome.counted = proposal.votes is not None and proposal.votes.count("A") == len(PLAYERS)
        return outcome
    finally:
        honest.close()
        spammer.close()
