"""Evaluates the part of CloudWatch Logs Insights' query language that docs/OPERATIONS.md uses: a test aid.

It runs a query on log lines a test captured (``gamebot.core.logs.JsonFormatter`` lines, EMF blobs) as Logs
Insights would in a log group, so a test can check the runbook's queries find what they claim to and name only
fields the bot prints. Semantics follow AWS's documentation (CWL_QuerySyntax, its filter and sort pages,
CWL_AnalyzeLogData-discoverable-fields); where it is silent, the choice is said here.

Events (``events()``): ``@message`` (the line), ``@timestamp`` = ``@ingestionTime``
(``YYYY-MM-DD HH:MM:SS.mmm`` UTC: given, or the ISO ``timestamp`` member, or EMF's ``_aws.Timestamp``),
``@logStream``, ``@log``, and the members of the line's first JSON object: nested objects flattened with dots
(``_aws.Timestamp``), arrays by index (``stackTrace.0``), ``@x`` as ``@@x``, nulls left out (a choice).
Values are strings, as in GetQueryResults.
Commands, separated by ``|`` (``#`` comments out the rest of a line):
- ``fields a, b as c``: columns shown (later commands still see every field); ``display a, b``: exactly these.
- ``filter``: ``= != < <= > >=`` (as numbers if both sides are; a number literal against a non-number is
  false), ``[not] like``/``=~`` with ``"substring"`` or ``/regex/`` (case-sensitive search; ``(?i)``
  anywhere ignores case), ``[not] in [...]``, ``ispresent``/``isempty``/``isblank(f)``, ``and``, ``or``,
  ``not``, parentheses. Any test of an absent field is false (``!=``, ``not like``, ``not in`` too).
- ``sort f asc|desc`` (a direction required: the default is undocumented) in the documented natural order:
  non-numbers (digit chunks by length then value, others by code point), then numbers; absent lowest.
- ``limit N`` (without it, at most 10,000 rows); ``stats agg [as name], ... [by f, ...]``: ``count(*)``,
  ``count()``, ``count(f)``, ``count_distinct``, ``sum``, ``avg``, ``min``, ``max``, ``earliest``/``latest``
  (f of the earliest/latest event having f); a row per group in order of appearance: the ``by`` fields, then
  the aggregates (unnamed: as written).
Default columns: ``@timestamp``, ``@message``; rows keep input order unless sorted. Anything else (commands,
functions, arithmetic, ``bin()``, ``/.../i``) raises ValueError saying where, so a test fails loudly.
"""
from __future__ import annotations

import datetime as dt
import functools
import json
import operator
import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

Event = dict[str, str]
Pred = Callable[[Event], bool]
Shown = list[str] | None
Step = Callable[[list[Event], Shown], tuple[list[Event], Shown]]

DEFAULT_LIMIT = 10_000
LOG_STREAM = "2025/01/01/[$LATEST]0123456789abcdef0123456789abcdef"
LOG_GROUP = "123456789012:/aws/lambda/test-function"
KEYWORDS = {"and", "or", "not", "like", "in", "as", "by", "asc", "desc"}
PREDICATES: dict[str, Callable[[str | None], bool]] = {
    "ispresent": lambda v: v is not None,
    "isempty": lambda v: v is None or v == "",
    "isblank": lambda v: v is None or not v.strip()}
AGGREGATES = ("count", "count_distinct", "sum", "avg", "min", "max", "earliest", "latest")
COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "=": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
    ">=": operator.ge}
_TOKEN = re.compile(r"""(?P<ws>\s+|\#[^\n]*)
  | (?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*') | (?P<regex>/(?:\\.|[^/\\\n])*/) | (?P<quoted>`[^`]+`)
  | (?P<num>-?\d+(?:\.\d+)?(?![\w.@])) | (?P<name>[@A-Za-z_][\w.@]*) | (?P<op>=~|!=|<=|>=|[=<>()\[\],|*])""",
                    re.VERBOSE)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
_CHUNK = re.compile(r"[0-9]+|[^0-9]+")


class _Tok(NamedTuple):
    kind: str  # str, regex, quoted, num, name, op, or end (after a command's last token)
    text: str
    pos: int


def _tokens(query: str) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    while pos < len(query):
        m = _TOKEN.match(query, pos)
        if m is None:
            raise ValueError(f"cannot read the query at offset {pos}: {query[pos:pos + 20]!r}")
        if m.lastgroup == "regex" and query[m.end():m.end() + 1].isalpha():
            raise ValueError(f"regex flags after /.../ (offset {m.end()}): not Logs Insights', use (?i)")
        if m.lastgroup != "ws":
            out.append(_Tok(m.lastgroup or "", m.group(), pos))
        pos = m.end()
    return out


def _num(value: str) -> float | None:
    return float(value) if _NUMBER.fullmatch(value) else None


def _sign[T: (float, str)](a: T, b: T) -> int:
    return int(a > b) - int(a < b)


def _natural(a: str | None, b: str | None) -> int:
    """Logs Insights' ascending order (CWL_QuerySyntax-Sort), absent values first."""
    ra, rb = (0 if v is None else 2 if _num(v) is not None else 1 for v in (a, b))
    if ra != rb or a is None or b is None:
        return ra - rb
    if ra == 2:
        return _sign(float(a), float(b)) or _sign(a, b)
    ca, cb = _CHUNK.findall(a), _CHUNK.findall(b)
    for x, y in zip(ca, cb, strict=False):
        digits = x[0].isdigit() and y[0].isdigit()
        c = (_sign(len(x), len(y)) or _sign(int(x), int(y))) if digits else _sign(x, y)
        if c:
            return c
    return _sign(len(ca), len(cb)) or _sign(a, b)


_NATURAL_KEY = functools.cmp_to_key(_natural)


def _compare(op: str, a: str | None, b: str | None, number_literal: bool) -> bool:
    if a is None or b is None:
        return False
    x, y = _num(a), _num(b)
    if x is not None and y is not None:
        return bool(COMPARISONS[op](x, y))
    return not number_literal and bool(COMPARISONS[op](a, b))


def _aggregate(fn: str, arg: str | None, members: list[Event]) -> str | None:
    present = members if arg is None else [e for e in members if arg in e]
    if fn == "count" or arg is None:
        return str(len(present))
    values = [e[arg] for e in present]
    if fn == "count_distinct" or not values:
        return str(len(set(values))) if fn == "count_distinct" else None
    if fn in ("min", "max"):
        return sorted(values, key=_NATURAL_KEY)[0 if fn == "min" else -1]
    if fn in ("earliest", "latest"):
        by_time = sorted(present, key=lambda e: _NATURAL_KEY(e.get("@timestamp")))
        return by_time[0 if fn == "earliest" else -1][arg]
    numbers = [x for x in map(_num, values) if x is not None]
    if not numbers:
        return None
    x = sum(numbers) / (len(numbers) if fn == "avg" else 1)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


class _Parser:
    """One command's tokens; notes the fields it reads (``refs``) and the names it defines (``defined``)."""

    def __init__(self, query: str, toks: list[_Tok], end: int, defined: set[str], refs: set[str]) -> None:
        self.query, self.toks, self.defined, self.refs = query, [*toks, _Tok("end", "", end)], defined, refs
        self.i = 0

    def fail(self, what: str) -> ValueError:
        pos = self.peek().pos
        return ValueError(f"{what} at offset {pos}: {self.query[pos:pos + 30]!r} in {self.query!r}")

    def peek(self, ahead: int = 0) -> _Tok:
        return self.toks[min(self.i + ahead, len(self.toks) - 1)]

    def word(self, *words: str, required: bool = False) -> str | None:
        t = self.peek()
        if t.kind in ("name", "op") and t.text in words:
            self.i += 1
            return t.text
        if required:
            raise self.fail(f"expected {words[0]!r}")
        return None

    def listed[T](self, item: Callable[[], T], separator: str = ",") -> list[T]:
        items = [item()]
        while self.word(separator):
            items.append(item())
        return items

    def name(self, defines: bool = False) -> str:
        t = self.peek()
        if not (t.kind == "quoted" or (t.kind == "name" and t.text not in KEYWORDS)):
            raise self.fail("expected a field name")
        if t.kind == "name" and self.peek(1).text == "(":
            raise self.fail(f"unsupported function {t.text}()")
        self.i += 1
        name = t.text[1:-1] if t.kind == "quoted" else t.text
        if defines:
            self.defined.add(name)
        elif name not in self.defined:
            self.refs.add(name)
        return name

    def literal(self) -> tuple[str, bool]:
        t = self.peek()
        if t.kind not in ("num", "str"):
            raise self.fail("expected a number or a quoted string")
        self.i += 1
        return (t.text if t.kind == "num" else re.sub(r"\\(.)", r"\1", t.text[1:-1])), t.kind == "num"

    def expr(self, level: int = 0) -> Pred:  # filter expressions: or, then and, then not and comparisons
        item = (lambda: self.expr(1)) if level == 0 else self.unary
        preds = self.listed(item, ("or", "and")[level])
        combine = any if level == 0 else all
        return preds[0] if len(preds) == 1 else (lambda e: combine(p(e) for p in preds))

    def unary(self) -> Pred:
        if self.word("not"):
            inner = self.unary()
            return lambda e: not inner(e)
        if self.word("("):
            inner = self.expr()
            self.word(")", required=True)
            return inner
        t = self.peek()
        if t.kind == "name" and t.text in PREDICATES and self.peek(1).text == "(":
            self.i += 2
            name, test = self.name(), PREDICATES[t.text]
            self.word(")", required=True)
            return lambda e: test(e.get(name))
        return self.comparison()

    def comparison(self) -> Pred:
        get, left_number = self.operand()
        negate = self.word("not") is not None
        if self.word("like") or (not negate and self.word("=~")):
            match = self.matcher()
            return lambda e: (v := get(e)) is not None and match(v) != negate
        if self.word("in"):
            self.word("[", required=True)
            values = self.listed(self.literal)
            self.word("]", required=True)
            return lambda e: (v := get(e)) is not None and any(_compare("=", v, *x) for x in values) != negate
        found = None if negate else self.word(*COMPARISONS)
        if found is None:
            raise self.fail("expected a comparison, like, =~ or in")
        op: str = found
        other, right_number = self.operand()
        return lambda e: _compare(op, get(e), other(e), left_number or right_number)

    def operand(self) -> tuple[Callable[[Event], str | None], bool]:
        if self.peek().kind in ("num", "str"):
            value, number = self.literal()
            return (lambda e: value), number
        name = self.name()
        return (lambda e: e.get(name)), False

    def matcher(self) -> Callable[[str], bool]:
        t = self.peek()
        if t.kind == "str":
            sub = self.literal()[0]
            return lambda v: sub in v
        if t.kind != "regex":
            raise self.fail('expected a "substring" or a /regex/')
        self.i += 1
        body = t.text[1:-1]
        try:  # Python wants (?i) first; Logs Insights takes it anywhere (its docs: =~ /^(?i)Exception$/)
            rx = re.compile(body.replace("(?i)", ""), re.IGNORECASE if "(?i)" in body else 0)
        except re.error as exc:
            raise ValueError(f"bad regex {t.text} at offset {t.pos} in {self.query!r}: {exc}") from None
        return lambda v: rx.search(v) is not None

    # commands
    def cmd_fields(self) -> Step:
        def field_as() -> tuple[str, str]:
            src = self.name()
            return src, self.name(defines=True) if self.word("as") else src
        pairs = self.listed(field_as)

        def step(rows: list[Event], shown: Shown) -> tuple[list[Event], Shown]:
            for r in rows:
                r.update({alias: r[src] for src, alias in pairs if alias != src and src in r})
            shown = shown or []
            return rows, shown + [a for _, a in pairs if a not in shown]
        return step

    def cmd_display(self) -> Step:
        names = self.listed(self.name)
        return lambda rows, shown: (rows, list(names))

    def cmd_filter(self) -> Step:
        pred = self.expr()
        return lambda rows, shown: ([r for r in rows if pred(r)], shown)

    def cmd_sort(self) -> Step:
        name, desc = self.name(), self.word("asc", "desc")
        if desc is None:
            raise self.fail("sort needs asc or desc (AWS's documentation leaves the default unstated)")
        return lambda rows, shown: (
            sorted(rows, key=lambda r: _NATURAL_KEY(r.get(name)), reverse=desc == "desc"), shown)

    def cmd_limit(self) -> Step:
        t = self.peek()
        if t.kind != "num" or not t.text.isdigit() or int(t.text) == 0:
            raise self.fail("limit needs a positive whole number")
        self.i += 1
        return lambda rows, shown: (rows[:int(t.text)], shown)

    def aggregate(self) -> tuple[str, str, str | None]:
        t = self.peek()
        if t.kind != "name" or t.text not in AGGREGATES or self.peek(1).text != "(":
            raise self.fail(f"expected one of {', '.join(AGGREGATES)}(...)")
        self.i += 2
        fn, arg, written = t.text, None, ""
        if fn == "count" and self.word("*"):
            written = "*"
        elif not (fn == "count" and self.peek().text == ")"):
            arg = written = self.name()
        self.word(")", required=True)
        column = self.name(defines=True) if self.word("as") else f"{fn}({written})"
        self.defined.add(column)
        return column, fn, arg

    def cmd_stats(self) -> Step:
        aggs = self.listed(self.aggregate)
        by = self.listed(self.name) if self.word("by") else []

        def step(rows: list[Event], shown: Shown) -> tuple[list[Event], Shown]:
            groups: dict[tuple[str | None, ...], list[Event]] = {}
            for r in rows:
                groups.setdefault(tuple(r.get(f) for f in by), []).append(r)
            out: list[Event] = []
            for key, members in groups.items():
                row = {f: v for f, v in zip(by, key, strict=True) if v is not None}
                values = {column: _aggregate(fn, arg, members) for column, fn, arg in aggs}
                out.append(row | {c: v for c, v in values.items() if v is not None})
            return out, by + [c for c, _, _ in aggs if c not in by]
        return step


def _compile(query: str) -> tuple[list[Step], set[str]]:
    commands: list[tuple[list[_Tok], int]] = [([], len(query))]
    for t in _tokens(query):
        if t.kind == "op" and t.text == "|":
            commands[-1:] = [(commands[-1][0], t.pos), ([], len(query))]
        else:
            commands[-1][0].append(t)
    steps: list[Step] = []
    defined, refs = set[str](), set[str]()
    for toks, end in commands:
        p = _Parser(query, toks, end, defined, refs)
        head = p.peek()
        build = {"fields": p.cmd_fields, "display": p.cmd_display, "filter": p.cmd_filter, "sort": p.cmd_sort,
                 "limit": p.cmd_limit, "stats": p.cmd_stats}.get(head.text if head.kind == "name" else "")
        if build is None:
            raise p.fail(f"unknown or unsupported command {head.text!r}" if head.text else "empty command")
        p.i = 1
        steps.append(build())
        if p.peek().kind != "end":
            raise p.fail(f"unexpected {p.peek().text!r}")
    return steps, refs


def _flatten(value: object, name: str, out: Event) -> None:
    if isinstance(value, dict):
        for key, member in value.items():
            _flatten(member, f"{name}.{key}" if name else ("@" + key if key.startswith("@") else key), out)
    elif isinstance(value, list):
        for i, member in enumerate(value):
            _flatten(member, f"{name}.{i}", out)
    elif value is not None:
        out[name] = json.dumps(value) if isinstance(value, bool) else str(value)


def _stamp(event: Event) -> int | None:
    try:
        when = dt.datetime.fromisoformat(event.get("timestamp", ""))
        return round((when if when.tzinfo else when.replace(tzinfo=dt.UTC)).timestamp() * 1000)
    except ValueError:
        raw = event.get("_aws.Timestamp", "")
        return int(raw) if raw.isdigit() else None


def events(lines: Sequence[str], *, timestamps: Sequence[int] | None = None, log_stream: str = LOG_STREAM,
           log_group: str = LOG_GROUP) -> list[Event]:
    """The events Logs Insights would discover in ``lines`` (``timestamps``: milliseconds, one per line)."""
    if timestamps is not None and len(timestamps) != len(lines):
        raise ValueError("one timestamp per line")
    out: list[Event] = []
    for i, line in enumerate(lines):
        event: Event = {"@message": line, "@logStream": log_stream, "@log": log_group}
        try:  # the first JSON object in the line (Lambda's rule); numbers keep their text ("12.50")
            found, _ = json.JSONDecoder(parse_int=str, parse_float=str).raw_decode(line, line.index("{"))
        except ValueError:
            found = None
        if isinstance(found, dict):
            _flatten(found, "", event)
        ms = timestamps[i] if timestamps is not None else _stamp(event)
        if ms is not None:
            when = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(milliseconds=ms)
            stamp = f"{when:%Y-%m-%d %H:%M:%S}.{when.microsecond // 1000:03d}"
            event["@timestamp"] = event["@ingestionTime"] = stamp
        out.append(event)
    return out


def referenced_fields(query: str) -> set[str]:
    """Every field ``query`` reads from the events (not the names it defines with ``as`` or ``stats``)."""
    return _compile(query)[1]


def run(query: str, lines: Sequence[str], *, timestamps: Sequence[int] | None = None,
        log_stream: str = LOG_STREAM, log_group: str = LOG_GROUP) -> list[dict[str, str]]:
    """The rows ``query`` returns on ``lines``: each the shown columns the row has (absent ones left out)."""
    rows, shown = events(lines, timestamps=timestamps, log_stream=log_stream, log_group=log_group), None
    for step in _compile(query)[0]:
        rows, shown = step(rows, shown)
    columns = shown if shown is not None else ["@timestamp", "@message"]
    return [{c: r[c] for c in columns if c in r} for r in rows[:DEFAULT_LIMIT]]
