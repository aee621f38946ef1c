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

