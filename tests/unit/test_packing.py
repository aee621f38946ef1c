"""How item bodies are stored (``gamebot.storage.packing``): text, or zlib with a preset dictionary named in the
stream's own header; what earlier versions wrote (plain zlib, text) still reads."""
from __future__ import annotations

import json
import random
import zlib

import pytest

from gamebot.storage import packing
from gamebot.storage.session import Session, chat_key
from localdev.autoplay import Policy
from tests.reliability.support import SETUPS, RobustDriver, set_settings
from tests.unit.gamebot_fakes import Harness, HarnessScreen


def test_the_shipped_dictionary_is_named_by_its_own_checksum():
    data = packing.dictionary(packing.CURRENT)
    assert zlib.adler32(data) == packing.CURRENT and 0 < len(data) <= 32768
    for path in packing.FOLDER.glob("*.bin"):  # every dictionary ever shipped stays readable
        assert int(path.stem, 16) == zlib.adler32(path.read_bytes())


def test_small_bodies_stay_text_and_large_ones_name_their_dictionary():
    small = {"id": 1, "started": True}
    assert packing.pack(small) == {"S": '{"id":1,"started":true}'}
    big = {"log": [f"{i}|vote|||" for i in range(500)], "name": "Ünïcode ♛"}
    value = packing.pack(big)
    data = value["B"]
    assert data[1] & 0x20 and int.from_bytes(data[2:6], "big") == packing.CURRENT  # FDICT + DICTID
    assert packing.unpack(value) == big


def test_what_earlier_versions_wrote_still_reads():
    body = {"log": [f"action {i}" for i in range(400)]}
    raw = json.dumps(body).encode()
    assert packing.unpack({"B": zlib.compress(raw)}) == body  # plain zlib
    assert packing.unpack({"S": json.dumps(body)}) == body


def test_a_body_compressed_with_an_unknown_dictionary_is_refused_with_a_reason():
    packer = zlib.compressobj(zdict=b"some other dictionary" * 10)
    data = packer.compress(json.dumps({"a": "b" * 2000}).encode()) + packer.flush()
    with pytest.raises(packing.UnknownDictionary, match="no compression dictionary"):
        packing.unpack({"B": data})


def test_a_played_game_is_stored_far_smaller_with_the_dictionary():
    """Every write of a seeded game with players of other names than the dictionary's games: the preset
    dictionary keeps well under three quarters of plain zlib's bytes (measured: about 0.45x;
    ``scripts/make_zdict.py``)."""
    theme, n, roles, options = SETUPS["base"]
    h = Harness(seed=977)
    players = list(range(9001, 9001 + n))
    h.lobby(players)
    set_settings(h.repo, h.group, theme, roles, options)
    h.press_label(players[0], h.group, "Start")
    driver = RobustDriver(HarnessScreen(h), h.group, players, Policy(rng=random.Random(5)))
    plain = preset = 0
    for _ in range(400):
        if driver.over() or not driver.step():
            break
        body = h.repo.items[chat_key(h.group)].body
        Session.from_body(body)
        raw = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
        if len(raw) > packing.COMPRESS_ABOVE:
            plain += len(zlib.compress(raw))
            preset += len(packing.pack(body)["B"])
            assert packing.unpack(packing.pack(body)) == body
    h.close()
    assert plain > 0 and preset < 0.75 * plain



# Bodies of every kind of JSON value: what ``json.dumps`` wrote before ``pack`` used pydantic's encoder
BODIES = [
    {"id": 1, "started": True, "none": None},
    {"title": "Ünïcode ♛ 🎲 \"quoted\" back\\slash </b> \u0001\u001f\u007f\u2028", "neg": -7, "big": 2**70},
    {"floats": [0.1, 1e16, 1e-7, -2.5, 1764201234.5678, 0.0], "nested": {"a": [{"b": []}, {}], "c": [[1, 2], [3]]}},
    {"log": [f"{i}|vote|||" for i in range(400)], "names": {str(i): f"Player {i} ✦" for i in range(10)}},
]


def _packed_as_before(body: dict) -> dict:
    """``pack`` as it was: ``json.dumps`` and the same dictionary."""
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    if len(text.encode()) <= packing.COMPRESS_ABOVE:
        return {"S": text}
    packer = zlib.compressobj(6, zdict=packing.dictionary(packing.CURRENT))
    return {"B": packer.compress(text.encode()) + packer.flush()}


def _unpacked_as_before(value: dict) -> dict:
    """``unpack`` as it was: ``json.loads``."""
    if "B" not in value:
        return json.loads(value["S"])
    data = bytes(value["B"])
    unpacker = zlib.decompressobj(zdict=packing.dictionary(int.from_bytes(data[2:6], "big")))
    return json.loads(unpacker.decompress(data) + unpacker.flush())


@pytest.mark.parametrize("body", BODIES)
def test_what_json_dumps_packed_reads_and_what_pack_writes_reads_with_json_loads(body):
    assert packing.unpack(_packed_as_before(body)) == body  # an item of the previous version, read now
    assert _unpacked_as_before(packing.pack(body)) == body  # an item written now, read by the previous version
    assert packing.unpack(packing.pack(body)) == body


def test_the_text_is_json_dumps_compact_text_but_for_a_floats_exponent():
    for body in BODIES:
        text = packing.pack(body).get("S") or _unpacked_text(packing.pack(body))
        before = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        assert text.replace("e-7", "e-07") == before
    nan = packing.unpack(packing.pack({"x": float("nan"), "y": float("inf")}))  # (as json.dumps wrote them)
    assert nan["x"] != nan["x"] and nan["y"] == float("inf")


def _unpacked_text(value: dict) -> str:
    data = bytes(value["B"])
    unpacker = zlib.decompressobj(zdict=packing.dictionary(int.from_bytes(data[2:6], "big")))
    return (unpacker.decompress(data) + unpacker.flush()).decode()
