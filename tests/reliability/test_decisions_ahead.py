"""Decisions made ahead: a press of the running game is decided while its group's session is still being
read (``UnitOfWork.commit``), on the session as this container last read or wrote it. The read says
whether that guess was right; if it was not (another container handled the chat's last update), the
decision is made again from what was read, and nothing decided on the stale guess is written or sent.

The same seeded game is played twice through containers against moto and the fake Bot API: once in one
container (every guess right), once with every press going to the other of two containers (nearly
every guess stale). The games must be the same move for move, and every message the same.
"""
from __future__ import annotations

import random
from typing import Any

from localdev.autoplay import Policy
from tests.reliability.support import Container, ContainerTable, RobustDriver, create_table, final_state

PLAYERS = list(range(1, 8))
GROUP = -1004000000000


class Alternating(ContainerTable):
    """Presses go to each container in turn (the lobby and the start: to the first)."""

    def __init__(self, fake: Any, containers: list[Container], group: int) -> None:
        super().__init__(fake, containers[0], group)
        self.containers = containers
        self.turn = 0

    def post(self, update: dict[str, Any]) -> int:
        self.container = self.containers[self.turn % len(self.containers)]
        self.turn += 1
        return super().post(update)


def _play(endpoint: str, fake: Any, count: int) -> tuple[Any, dict[int, list[str]], list[dict[str, int]]]:
    fake.reset()
    table_name = f"ahead-{random.getrandbits(32):x}"
    create_table(endpoint, table_name)
    containers = [Container(endpoint, fake, table_name, seeds=random.Random(7 + i)) for i in range(count)]
    try:
        table = ContainerTable(fake, containers[0], GROUP)
        table.open_lobby(PLAYERS)
        table.press_label(PLAYERS[0], GROUP, "Start")
        play = Alternating(fake, containers, GROUP)
        driver = RobustDriver(play, GROUP, PLAYERS, Policy(rng=random.Random(11)), status=play.status)
        driver.play()
        assert driver.over()
        assert set(table.statuses + play.statuses) == {200}
        chats = {chat: [m.get("text", "") for m in fake.messages(chat)] for chat in [GROUP, *PLAYERS]}
        counts = [{**c.service.repo.read_ahead, **c.service.repo.calls} for c in containers]
        return final_state(containers[0].service.repo, GROUP), chats, counts
    finally:
        for c in containers:
            c.close()


def test_a_stale_guess_is_decided_again_and_the_game_is_the_same(moto_endpoint, fake_server):
    alone, alone_chats, (one,) = _play(moto_endpoint, fake_server, 1)
    assert one["guessed"] > 20 and one["confirmed"] == one["guessed"]  # one container: every guess right
    shared, shared_chats, counts = _play(moto_endpoint, fake_server, 2)
    total = {k: sum(c[k] for c in counts) for k in counts[0]}
    assert total["guessed"] > 20 and total["confirmed"] < total["guessed"] / 2  # the other wrote last, mostly
    assert shared.log == alone.log and shared.winner == alone.winner
    assert shared_chats == alone_chats
    # a stale guess costs no request: no write was tried on it (none failed its version check)
    assert (total["read"], total["write"], total["note"]) == (one["read"], one["write"], one["note"])
