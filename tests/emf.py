"""The CloudWatch Embedded Metric Format, checked as its specification states it (tests share this module).

A blob is one JSON object on one log line. Its root member ``_aws`` holds ``Timestamp`` (milliseconds since
the epoch, a whole number) and ``CloudWatchMetrics``, a list of metric directives: each has a ``Namespace``
(a string), ``Dimensions`` (a list of dimension sets: each a list of at most 30 names, every name a member of
the root whose value is a string) and ``Metrics`` (a list of at most 100 definitions: ``Name``, a string that
is a member of the root; ``Unit``, optional, one of CloudWatch's units; ``StorageResolution``, optional, 1 or
60). A metric's member is a number or a list of at most 100 numbers (finite). A log event holds at most
256 KB.
"""
from __future__ import annotations

import json
import math
from typing import Any

UNITS = {
    "Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes", "Gigabytes", "Terabytes", "Bits",
    "Kilobits", "Megabits", "Gigabits", "Terabits", "Percent", "Count", "Bytes/Second", "Kilobytes/Second",
    "Megabytes/Second", "Gigabytes/Second", "Terabytes/Second", "Bits/Second", "Kilobits/Second", "Megabits/Second",
    "Gigabits/Second", "Terabits/Second", "Count/Second", "None",
}
MAX_DIMENSIONS = 30
MAX_METRICS = 100
MAX_VALUES = 100
MAX_EVENT = 256 * 1024


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def problems(line: str) -> list[str]:
    """What is wrong with ``line`` as an EMF blob (empty: nothing)."""
    if len(line.encode()) > MAX_EVENT:
        return ["larger than a log event"]
    try:
        blob = json.loads(line)
    except ValueError:
        return ["not JSON"]
    if not isinstance(blob, dict) or not isinstance(blob.get("_aws"), dict):
        return ["no root object _aws"]
    meta = blob["_aws"]
    found = []
    stamp = meta.get("Timestamp")
    if not isinstance(stamp, int) or isinstance(stamp, bool) or stamp < 0:
        found.append("Timestamp is not a whole number of milliseconds")
    directives = meta.get("CloudWatchMetrics")
    if not isinstance(directives, list) or not directives:
        return [*found, "CloudWatchMetrics is not a non-empty list"]
    for d in directives:
        if not isinstance(d, dict):
            found.append("a directive is not an object")
            continue
        if not isinstance(d.get("Namespace"), str) or not d["Namespace"]:
            found.append("a directive has no Namespace")
        sets = d.get("Dimensions")
        if not isinstance(sets, list):
            found.append("Dimensions is not a list")
            sets = []
        for names in sets:
            if not isinstance(names, list) or len(names) > MAX_DIMENSIONS:
                found.append(f"a dimension set is not a list of at most {MAX_DIMENSIONS} names")
                continue
            for name in names:
                if not isinstance(name, str) or not isinstance(blob.get(name), str) or not blob[name]:
                    found.append(f"dimension {name!r} is not a string member of the root")
        metrics = d.get("Metrics")
        if not isinstance(metrics, list) or len(metrics) > MAX_METRICS:
            found.append(f"Metrics is not a list of at most {MAX_METRICS}")
            metrics = []
        for m in metrics:
            name = m.get("Name") if isinstance(m, dict) else None
            if not isinstance(name, str) or name not in blob:
                found.append(f"metric {name!r} has no member at the root")
                continue
            if "Unit" in m and m["Unit"] not in UNITS:
                found.append(f"metric {name} has the unit {m['Unit']!r}")
            if "StorageResolution" in m and m["StorageResolution"] not in (1, 60):
                found.append(f"metric {name} has the storage resolution {m['StorageResolution']!r}")
            value = blob[name]
            if isinstance(value, list):
                if not value or len(value) > MAX_VALUES or not all(_number(v) for v in value):
                    found.append(f"metric {name} is not a list of 1 to {MAX_VALUES} numbers")
            elif not _number(value):
                found.append(f"metric {name} is not a number")
    return found


def blobs(text: str) -> list[dict[str, Any]]:
    """The EMF blobs among the lines of ``text`` (a function's stdout), each checked against the format."""
    out = []
    for line in text.splitlines():
        if line.startswith("{") and '"_aws"' in line:
            assert problems(line) == [], (problems(line), line)
            out.append(json.loads(line))
    return out


def values(found: list[dict[str, Any]], name: str) -> list[float]:
    """Every value of the metric ``name`` in the blobs ``found`` (a member is a number or a list of them)."""
    out: list[float] = []
    for blob in found:
        value = blob.get(name)
        out += value if isinstance(value, list) else [] if value is None else [value]
    return out


def total(found: list[dict[str, Any]], name: str) -> float:
    """The sum of every value of the metric ``name`` in the blobs ``found``."""
    return sum(values(found, name))
