"""How an item's body is stored: compact JSON text, or that JSON compressed with zlib and a preset
dictionary of what chat sessions are made of (field names, role and card ids, the bot's phrases).

DynamoDB charges a write unit per KB written (the larger of the old and the new item) and a read unit
per 4 KB read, and a chat item is written at every move. A game's session is 5-19 KB of JSON; zlib
alone brings it to about 2.1 KB, and with the preset dictionary to about 1.4 KB: a third fewer write
units for the same writes (``scripts/make_zdict.py`` builds the dictionary from seeded games and
reports the saving).

A zlib stream made with a preset dictionary names it in its header (FDICT, and the dictionary's
Adler-32 as DICTID), so every stored body says how to read it: plain zlib (what earlier versions
wrote), or one of the preset dictionaries, found by that id (:func:`dictionary`). Dictionaries are files
of this package (``zdict/<id>.bin``) and are never changed or removed once shipped: a better one is
added under its own id and made ``CURRENT``; the old ones keep reading what they wrote.
"""
from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any, TypedDict

from pydantic import ConfigDict, TypeAdapter


class AttributeValue(TypedDict, total=False):
    """One DynamoDB attribute value, as boto3's client takes and gives it (binary values as ``bytes``):
    ``pack`` makes one (S or B), ``gamebot.aws`` reads and writes whole items of them."""

    S: str
    N: str
    B: bytes
    SS: list[str]
    NS: list[str]
    BS: list[bytes]
    M: dict[str, AttributeValue]
    L: list[AttributeValue]
    NULL: bool
    BOOL: bool


Record = dict[str, AttributeValue]  # a DynamoDB item: attribute name -> value

# pydantic's JSON (in Rust): the writer takes a third of json.dumps's time, the reader half of json.loads's
_BODY_JSON: TypeAdapter[Any] = TypeAdapter(Any, config=ConfigDict(ser_json_inf_nan="constants"))  # (NaN as json.dumps)
_BODY: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])

COMPRESS_ABOVE = 1024  # bytes of JSON; smaller bodies stay readable text (they cost one write unit anyway)
FOLDER = Path(__file__).resolve().parent / "zdict"
CURRENT = 0x0C080593  # the dictionary new bodies are compressed with (its Adler-32): zdict/0c080593.bin
_loaded: dict[int, bytes] = {}
_primed: zlib._Compress | None = None  # a compressor with the current dictionary loaded, never used itself


class UnknownDictionary(ValueError):
    """A body compressed with a dictionary this version does not have."""


def dictionary(dict_id: int) -> bytes:
    """The preset dictionary whose Adler-32 is ``dict_id`` (read once per process)."""
    found = _loaded.get(dict_id)
    if found is None:
        path = FOLDER / f"{dict_id:08x}.bin"
        try:
            found = path.read_bytes()
        except FileNotFoundError:
            raise UnknownDictionary(f"no compression dictionary {dict_id:08x}") from None
        if zlib.adler32(found) != dict_id:
            raise UnknownDictionary(f"dictionary file {path.name} does not match its id")
        _loaded[dict_id] = found
    return found


def _packer() -> zlib._Compress:
    """A compressor primed with the current dictionary, copied for each body: loading the dictionary
    into a new compressor took half of the compression's time (the copy's output is the same)."""
    global _primed
    if _primed is None:
        _primed = zlib.compressobj(6, zdict=dictionary(CURRENT))
    return _primed.copy()


def pack(body: dict[str, Any]) -> AttributeValue:
    """The DynamoDB attribute value that stores ``body``: ``{"S": json}`` or ``{"B": compressed}``.

    The JSON is pydantic's, the same text as ``json.dumps(body, separators=(",", ":"), ensure_ascii=False)``
    up to how a float's exponent is spelt (``1e-7``, ``1e-07``): either reads back as the other does."""
    raw = _BODY_JSON.dump_json(body)
    if len(raw) <= COMPRESS_ABOVE:
        return {"S": raw.decode()}
    packer = _packer()
    return {"B": packer.compress(raw) + packer.flush()}


def unpack(value: AttributeValue) -> dict[str, Any]:
    """The body stored in ``value`` (as :func:`pack` wrote it, or plain zlib, or text; earlier versions
    wrote the JSON with ``json.dumps``). Parsed by pydantic: the same values as ``json.loads``."""
    body: dict[str, Any]  # (what ``pack`` was given: a JSON object)
    if "B" not in value:
        body = _BODY.validate_json(value["S"])
        return body
    data = bytes(value["B"])
    if len(data) >= 6 and data[1] & 0x20:  # FDICT: the dictionary's id follows the two header bytes
        unpacker = zlib.decompressobj(zdict=dictionary(int.from_bytes(data[2:6], "big")))
        body = _BODY.validate_json(unpacker.decompress(data) + unpacker.flush())
    else:
        body = _BODY.validate_json(zlib.decompress(data))
    return body
