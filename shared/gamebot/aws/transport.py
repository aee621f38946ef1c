"""The HTTP/1.1 transport of our AWS client (``gamebot.aws.client``): one kept-alive connection per thread.

``http.client`` opens the connections (TCP, TLS with one shared context, the connect timeout); the
request is written in one ``sendall`` (``HTTPConnection.request`` writes the headers and the body
apart: two packets) and the answer is read by :func:`read_response`, a small parser for what AWS
sends (a status line, headers, a body of ``Content-Length`` bytes or chunked): ``http.client``'s own
goes through the ``email`` package's header parser, about a third of a request's CPU here.

A connection belongs to the thread that opened it (``threading.local``): the service calls DynamoDB
from worker threads too, and a connection carries one request at a time. A kept-alive connection that
the other side dropped while idle fails at once: it is reopened and the request sent again, once.

Timeouts: connect ``CONNECT_TIMEOUT``, then ``READ_TIMEOUT`` for each socket operation (the write of
the request, each read of the answer). A request given ``budget`` seconds (``send``) must be over
within them: the connect timeout and each operation's timeout shrink to what is left of the budget; a
connect or a write that would start after it raises ``TimeoutError``, and a read then takes only what
has arrived (so an answer trickled in byte by byte cannot outlast the budget either). Only the name
lookup (``getaddrinfo``) has no timeout of its own.

:func:`deadline` sets the time by which the requests started inside its ``with`` block must be over:
``gamebot.aws.client`` reads it when a request starts and gives each attempt what is left as its budget. It
is a ``ContextVar``: the asyncio tasks and the ``asyncio.to_thread`` workers started inside copy it, so
work started for one Lambda invocation obeys its deadline and nothing of it is left for the next one.
"""
from __future__ import annotations

import http.client
import io
import socket
import ssl  # (http.client imports it anyway)
import threading
from collections.abc import Buffer, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from time import monotonic
from typing import BinaryIO, NamedTuple
from urllib.parse import urlsplit

from gamebot.environment import Environment

CONNECT_TIMEOUT = 3.0
READ_TIMEOUT = 5.0
MAX_LINE = 65536
NETWORK_ERRORS = (OSError, http.client.HTTPException)  # OSError: refused, reset, timeouts, TLS, DNS
# how a kept-alive connection closed by the other side fails when it is used again
DROPPED = (ConnectionError, http.client.BadStatusLine, ssl.SSLEOFError, ssl.SSLZeroReturnError)

_lock = threading.Lock()
_SSL: ssl.SSLContext | None = None
_DEADLINE: ContextVar[float | None] = ContextVar("gamebot_aws_deadline", default=None)


@contextmanager
def deadline(seconds: float | None, clock: Callable[[], float] = monotonic) -> Iterator[float | None]:
    """AWS requests started inside must be over within ``seconds`` from now (an enclosing deadline that
    comes first stays; ``None``: none of its own). Yields the deadline, a time on ``clock`` (the AWS
    clients' clock: ``time.monotonic`` unless a test gives them another)."""
    outer = _DEADLINE.get()
    at = outer if seconds is None else clock() + seconds
    if outer is not None and at is not None:
        at = min(outer, at)
    token = _DEADLINE.set(at)
    try:
        yield at
    finally:
        _DEADLINE.reset(token)


def current_deadline() -> float | None:
    """The deadline in force here (:func:`deadline`), None if there is none."""
    return _DEADLINE.get()


def ssl_context() -> ssl.SSLContext:
    """One TLS context per process, made with the first https connection (``AWS_CA_BUNDLE`` honoured)."""
    global _SSL
    with _lock:
        if _SSL is None:
            _SSL = ssl.create_default_context(cafile=Environment.read().aws_ca_bundle or None)
        return _SSL


class Response(NamedTuple):
    status: int
    headers: dict[str, str]  # names lowercased
    body: bytes
    close: bool  # the server closes the connection after this answer


def _line(reader: BinaryIO) -> bytes:
    line = reader.readline(MAX_LINE + 1)
    if len(line) > MAX_LINE:
        raise http.client.LineTooLong("header line")
    return line


def read_response(reader: BinaryIO, method: str) -> Response:
    """One HTTP/1.x answer from a buffered reader (interim 1xx answers skipped)."""
    while True:
        line = _line(reader)
        if not line:
            raise http.client.RemoteDisconnected("the connection closed without an answer")
        version, _, rest = line.partition(b" ")
        code = rest[:3]
        if not version.startswith(b"HTTP/1.") or not code.isdigit():
            raise http.client.BadStatusLine(repr(line))
        headers: dict[str, str] = {}
        while (line := _line(reader)) not in (b"\r\n", b"\n"):
            if not line:
                raise http.client.IncompleteRead(b"")
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            value = value.strip()
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        status = int(code)
        if status >= 200 or status == 101:
            break
    connection = headers.get("connection", "").lower()
    close = "close" in connection or (version == b"HTTP/1.0" and "keep-alive" not in connection)
    if method == "HEAD" or status in (204, 304):
        return Response(status, headers, b"", close)
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return Response(status, headers, _chunked(reader), close)
    if "content-length" in headers:
        length = int(headers["content-length"])
        body = reader.read(length)
        if len(body) < length:
            raise http.client.IncompleteRead(body, length - len(body))
        return Response(status, headers, body, close)
    return Response(status, headers, reader.read(), True)  # delimited by the end of the connection


def _chunked(reader: BinaryIO) -> bytes:
    parts: list[bytes] = []
    while True:
        size_line = _line(reader)
        try:
            size = int(size_line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise http.client.IncompleteRead(b"".join(parts)) from None
        if size == 0:
            while _line(reader) not in (b"\r\n", b"\n", b""):  # trailers
                pass
            return b"".join(parts)
        chunk = reader.read(size)
        if len(chunk) < size:
            raise http.client.IncompleteRead(chunk, size - len(chunk))
        parts.append(chunk)
        _line(reader)  # the CRLF after the chunk


def time_left(until: float | None, most: float) -> float:
    """The timeout of the next socket operation: ``most``, or less if ``until`` (``monotonic()``) comes
    first; ``TimeoutError`` once ``until`` has passed."""
    if until is None:
        return most
    left = until - monotonic()
    if left <= 0:
        raise TimeoutError("the request's time is up")
    return min(most, left)


class TimedReader(io.RawIOBase):
    """A socket's reads, each with what is left until ``until`` (at most ``READ_TIMEOUT``) as its timeout;
    once ``until`` has passed a read takes only what has arrived already (it never waits: a request
    written under an earlier deadline and read later, e.g. a read ahead left unused, still gets an
    answer that is there). The buffered reader the answer is parsed from sits on it."""

    def __init__(self, sock: socket.socket) -> None:
        super().__init__()
        self.sock = sock
        self.until: float | None = None  # the end of the current request's budget (None: no end)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Buffer) -> int:
        if self.until is not None:
            left = self.until - monotonic()
            self.sock.settimeout(min(READ_TIMEOUT, left) if left > 0 else 0.0)  # (0: BlockingIOError if none)
        received: int = self.sock.recv_into(buffer)  # (a socket's recv_into: the bytes it read)
        return received


class Sent(NamedTuple):
    """A request written, its answer not read yet (:meth:`Transport.send`)."""

    request: bytes
    method: str
    connection: _Connection
    reused: bool  # it went on a kept-alive connection (which may turn out to have been dropped)
    until: float | None  # when its budget ends (``monotonic()``), None without a budget


class _Connection:
    __slots__ = ("conn", "raw", "reader")

    def __init__(self, conn: http.client.HTTPConnection) -> None:
        self.conn = conn
        self.raw = TimedReader(conn.sock)
        self.reader = io.BufferedReader(self.raw)

    def write(self, request: bytes, until: float | None) -> None:
        """Send the request (one ``sendall``) and arm the reads of its answer with ``until``."""
        self.raw.until = until
        self.conn.sock.settimeout(time_left(until, READ_TIMEOUT))  # (also the reads' without a budget)
        self.conn.sock.sendall(request)

    def close(self) -> None:
        self.reader.close()
        self.conn.close()


class Transport:
    """The connections to one endpoint (``http[s]://host[:port][/prefix]``): one per thread, kept alive."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) endpoint: {url}")
        self.https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self.https else 80)
        default = 443 if self.https else 80
        host = f"[{self.host}]" if ":" in self.host else self.host  # an IPv6 literal
        self.host_header = host if self.port == default else f"{host}:{self.port}"  # as SigV4 signs it
        self.prefix = parts.path.rstrip("/")
        self._local = threading.local()  # .connection: this thread's

    def _connect(self, until: float | None) -> _Connection:
        timeout = time_left(until, CONNECT_TIMEOUT)  # (the TCP connect and, for https, each TLS step)
        if self.https:
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                self.host, self.port, timeout=timeout, context=ssl_context())
        else:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        conn.connect()  # (sets TCP_NODELAY)
        return _Connection(conn)

    def close(self) -> None:
        """Close this thread's connection (other threads' close when their threads end)."""
        connection, self._local.connection = getattr(self._local, "connection", None), None
        if connection is not None:
            connection.close()

    def exchange(self, method: str, target: str, headers: dict[str, str], body: bytes | None,
                 budget: float | None = None) -> Response:
        """Send one request (``headers`` must hold ``Host``) and read its answer. Network failures raise
        (``OSError``, ``http.client.HTTPException``: ``NETWORK_ERRORS``; ``TimeoutError`` among them)."""
        return self.receive(self.send(method, target, headers, body, budget))

    def send(self, method: str, target: str, headers: dict[str, str], body: bytes | None,
             budget: float | None = None) -> Sent:
        """Write one request on this thread's connection without waiting for its answer: the caller
        may work meanwhile, then must :meth:`receive` it before this thread sends anything else here.
        ``budget``: the seconds, from now, within which the request and its answer must be over."""
        lines = [f"{method} {target} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items())]
        if body is not None:
            lines.append(f"Content-Length: {len(body)}")
        request = ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")
        until = None if budget is None else monotonic() + budget
        connection = getattr(self._local, "connection", None)
        reused = connection is not None
        try:
            if connection is None:
                connection = self._local.connection = self._connect(until)
            connection.write(request, until)
        except NETWORK_ERRORS as exc:
            self._drop()
            # a kept-alive connection dropped while idle fails at once: reopen it, once
            if not (reused and isinstance(exc, DROPPED)):
                raise
            try:
                connection = self._local.connection = self._connect(until)
                connection.write(request, until)
            except NETWORK_ERRORS:
                self._drop()
                raise
            reused = False
        return Sent(request, method, connection, reused, until)

    def receive(self, sent: Sent) -> Response:
        """The answer to a request :meth:`send` wrote (sent again once on a fresh connection if the
        kept-alive one turns out to have been dropped)."""
        try:
            response = read_response(sent.connection.reader, sent.method)
        except NETWORK_ERRORS as exc:
            self._drop()
            if not (sent.reused and isinstance(exc, DROPPED)):
                raise
            try:
                connection = self._local.connection = self._connect(sent.until)
                connection.write(sent.request, sent.until)
                response = read_response(connection.reader, sent.method)
            except NETWORK_ERRORS:
                self._drop()
                raise
        if response.close:
            self._drop()
        return response

    def _drop(self) -> None:
        connection, self._local.connection = getattr(self._local, "connection", None), None
        if connection is not None:
            connection.close()
