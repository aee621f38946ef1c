"""Build the preset compression dictionary of chat items (``gamebot.storage.packing``), or measure one.

    .venv/bin/python scripts/make_zdict.py            # measure the current dictionary on held-out games
    .venv/bin/python scripts/make_zdict.py --build    # write a new one: shared/gamebot/storage/zdict/<id>.bin

A dictionary is what zlib may refer back to before the data begins: sessions share most of their
structure (field names, the configuration, role and card ids, the outbox's phrases), so the middle of
one seeded game of each reliability set-up (``tests/reliability/support.SETUPS``: together every
character and module) makes a good one. Games are played by the simulated players through the
service, in memory; the measurement plays other seeds with other player names and reports stored
bytes and DynamoDB write units (1 per KB written, the item's key and version included), with plain
zlib and with the dictionary, side by side.

A dictionary once shipped is never changed or removed (stored items name it by its Adler-32); after
``--build`` set ``packing.CURRENT`` to the new id and keep the old file.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared"), str(ROOT / "functions" / "webhook"), str(ROOT)]
OVERHEAD = 40  # bytes of an item besides its body: key, version, attribute names


def bodies(setup: str, seed: int, first_user: int) -> list[bytes]:
    """The chat item's body (compact JSON) after every move of one game."""
    import gamebot.core.service
    from gamebot.storage.session import chat_key
    from localdev.autoplay import Policy
    from tests.reliability.support import SETUPS, RobustDriver, set_settings
    from tests.unit.gamebot_fakes import Harness, HarnessScreen

    gamebot.core.service.new_game_id = lambda: f"{seed:06x}"  # (deterministic: the dictionary must be)
    theme, n, roles, options = SETUPS[setup]
    h = Harness(seed=seed)
    players = list(range(first_user, first_user + n))
    h.lobby(players)
    set_settings(h.repo, h.group, theme, roles, options)
    h.press_label(players[0], h.group, "Start")
    driver = RobustDriver(HarnessScreen(h), h.group, players, Policy(rng=random.Random(seed)),
                          status=lambda u, c: h.command(u, "/status", chat_id=c))
    out = []
    for _ in range(3000):
        if driver.over() or (not driver.step() and not h.idle()):
            break
        body = h.repo.items[chat_key(h.group)].body
        out.append(json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode())
    h.close()
    return out


def build() -> bytes:
    from tests.reliability.support import SETUPS

    parts = []
    for i, setup in enumerate(SETUPS):
        played = bodies(setup, i + 1, 1)
        parts.append(played[len(played) // 2])
    return b"".join(parts)[-32768:]


def packed(raw: bytes, zdict: bytes | None) -> int:
    packer = zlib.compressobj(6, zdict=zdict) if zdict else zlib.compressobj(6)
    return len(packer.compress(raw) + packer.flush())


def measure(zdict: bytes) -> dict[str, float]:
    from tests.reliability.support import SETUPS

    held_out = [raw for i, setup in enumerate(SETUPS) for raw in bodies(setup, 101 + i, 7001 + 10 * i)]
    big = [raw for raw in held_out if len(raw) > 1024]
    plain = [packed(raw, None) for raw in big]
    preset = [packed(raw, zdict) for raw in big]
    units = lambda sizes: sum(-(-(size + OVERHEAD) // 1024) for size in sizes)  # noqa: E731
    return {"writes": len(big), "json_bytes": statistics.mean(len(r) for r in big),
            "zlib_bytes": statistics.mean(plain), "zdict_bytes": statistics.mean(preset),
            "zlib_wru": units(plain), "zdict_wru": units(preset)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", action="store_true", help="write a new dictionary (and measure it)")
    args = parser.parse_args()
    from gamebot.storage import packing

    if args.build:
        zdict = build()
        path = packing.FOLDER / f"{zlib.adler32(zdict):08x}.bin"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(zdict)
        print(f"wrote {path.relative_to(ROOT)} ({len(zdict)} bytes); set packing.CURRENT = 0x{zlib.adler32(zdict):08X}")
    else:
        zdict = packing.dictionary(packing.CURRENT)
    m = measure(zdict)
    print(f"{m['writes']} writes of held-out games (other seeds, other players): JSON {m['json_bytes']:.0f} B;"
          f" zlib {m['zlib_bytes']:.0f} B, with the dictionary {m['zdict_bytes']:.0f} B"
          f" ({m['zdict_bytes'] / m['zlib_bytes']:.2f}x); write units {m['zlib_wru']} -> {m['zdict_wru']}"
          f" ({m['zdict_wru'] / m['zlib_wru']:.2f}x)")


if __name__ == "__main__":
    main()
