"""The HTTP/1.1 transport of our AWS client (``gamebot.aws``): one kept-alive connection per thread.

``http.client`` opens the connections (TCP, TLS with one shared context, the connect timeout); the
request is written in one ``sendall`` (``HTTPConnection.request`` writes the headers and the body
apart: two packets) and the answer is read by :func:`read_response`, a small parser for what AWS
sends (a status line, headers, a body of ``Content-Length`` bytes or chunked): ``http.client``'s own
goes through the ``email`` package's header parser, about a third of a request's CPU here.

A connection belongs to the thread that opened it (``threading.local``): the service calls DynamoDB
from worker threads too, and a connection carries one request at a time. A kept-alive connection that
the other side dropped while idle fails at once: it is reopened and the request sent again, once.
"""
from __future__ import annotations

import http.client
import os
import ssl  # (http.client imports it anyway)
import threading
from typing import Any, NamedTuple
from urllib.parse import urlsplit

CONNECT_TIMEOUT = 3.0
READ_TIMEOUT = 5.0
MAX_LINE = 65536
NETWORK_ERRORS = (OSError, http.client.HTTPException)  # OSError: refused, reset, timeouts, TLS, DNS
# how a kept-alive connection closed by the other side fails when it is used again
DROPPED = (ConnectionError, http.client.BadStatusLine, ssl.SSLEOFError, ssl.SSLZeroReturnError)

_lock = threading.Lock()
_SSL: Any = None


def ssl_context() -> Any:
    """One TLS context per process, made with the first https connection (``AWS_CA_BUNDLE`` honoured)."""
    global _SSL
    with _lock:
        if _SSL is None:
            _SSL = ssl.create_default_context(cafile=os.environ.get("AWS_CA_BUNDLE") or None)
        return _SSL


class Response(NamedTuple):
    status: int
    headers: dict[str, str]  # names lowercased
    body: bytes
    close: bool  # the server closes the connection after this answer


def _line(reader: Any) -> bytes:
    line = reader.readline(MAX_LINE + 1)
    if len(line) > MAX_LINE:
        raise http.client.LineTooLong("header line")
    return line


def read_response(reader: Any, method: str) -> Response:
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


def _chunked(reader: Any) -> bytes:
    parts = []
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


class Sent(NamedTuple):
    """A request written, its answer not read yet (:meth:`Transport.send`)."""

    request: bytes
    method: str
    connection: Any  # _Connection
    reused: bool  # it went on a kept-alive connection (which may turn out to have been dropped)


class _Connection:
    __slots__ = ("conn", "reader")

    def __init__(self, conn: http.client.HTTPConnection) -> None:
        self.conn = conn
        self.reader = conn.sock.makefile("rb")

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

    def _connect(self) -> _Connection:
        if self.https:
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                self.host, self.port, timeout=CONNECT_TIMEOUT, context=ssl_context())
        else:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=CONNECT_TIMEOUT)
        conn.connect()  # (sets TCP_NODELAY)
        conn.sock.settimeout(READ_TIMEOUT)
        return _Connection(conn)

    def close(self) -> None:
        """Close this thread's connection (other threads' close when their threads end)."""
        connection, self._local.connection = getattr(self._local, "connection", None), None
        if connection is not None:
            connection.close()

    def exchange(self, method: str, target: str, headers: dict[str, str], body: bytes | None) -> Response:
        """Send one request (``headers`` must hold ``Host``) and read its answer. Network failures raise
        (``OSError``, ``http.client.HTTPException``: ``NETWORK_ERRORS``)."""
        return self.receive(self.send(method, target, headers, body))

    def send(self, method: str, target: str, headers: dict[str, str], body: bytes | None) -> Sent:
        """Write one request on this thread's connection without waiting for its answer: the caller
        may work meanwhile, then must :meth:`receive` it before this thread sends anything else here."""
        lines = [f"{method} {target} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items())]
        if body is not None:
            lines.append(f"Content-Length: {len(body)}")
        request = ("\r\n".join(lines) + "\r\n\r\n").encode() + (body or b"")
        connection = getattr(self._local, "connection", None)
        reused = connection is not None
        try:
            if connection is None:
                connection = self._local.connection = self._connect()
            connection.conn.sock.sendall(request)
        except NETWORK_ERRORS as exc:
            self._drop()
            # a kept-alive connection dropped while idle fails at once: reopen it, once
            if not (reused and isinstance(exc, DROPPED)):
                raise
            connection = self._local.connection = self._connect()
            try:
                connection.conn.sock.sendall(request)
            except NETWORK_ERRORS:
                self._drop()
                raise
            reused = False
        return Sent(request, method, connection, reused)

    def receive(self, sent: Sent) -> Response:
        """The answer to a request :meth:`send` wrote (sent again once on a fresh connection if the
        kept-alive one turns out to have been dropped)."""
        try:
            response = read_response(sent.connection.reader, sent.method)
        except NETWORK_ERRORS as exc:
            self._drop()
            if not (sent.reused and isinstance(exc, DROPPED)):
                raise
            connection = self._local.connection = self._connect()
            try:
                connection.conn.sock.sendall(sent.request)
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
