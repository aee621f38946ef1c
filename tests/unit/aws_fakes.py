"""A tiny scripted HTTP/1.1 server on 127.0.0.1 for the AWS client's tests: it records every request and
answers from a script (an answer, a dropped connection, an answer followed by a silent close, no answer
at all, an answer that stops halfway); once the script is over, it answers 200 {} or, given
``forward``, passes the requests on to that server (moto) and its answers back."""
from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from typing import Any

DROP = "drop"  # close the connection without answering
SILENT = "silent"  # never answer (the connection stays open until the client closes it)


@dataclass
class Answer:
    status: int = 200
    body: Any = field(default_factory=dict)  # dict/list: JSON; bytes/str: as is
    headers: dict[str, str] = field(default_factory=dict)
    close: bool = False  # say "Connection: close" and close
    vanish: bool = False  # answer, then close without saying so (an idle keep-alive connection dropped)
    chunked: bool = False
    stall: bool = False  # send the head and half the body, then nothing more (the connection stays open)


@dataclass
class Request:
    method: str
    target: str
    headers: dict[str, str]  # names lowercased
    body: bytes
    connection: int

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def dynamo_error(code: str, message: str = "", status: int = 400, **extra: Any) -> Answer:
    return Answer(status, {"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": message, **extra})


class ScriptedServer:
    def __init__(self, *script: Answer | str, tls: Any = None, forward: str | None = None) -> None:
        """``tls``: an ``ssl.SSLContext`` for the server side (https); ``forward``: the http URL of the
        server that answers once the script is over."""
        self.script: list[Answer | str] = list(script)
        self.tls = tls
        self.forward = forward
        self.requests: list[Request] = []
        self.connections = 0
        self._lock = threading.Lock()
        self._sock = socket.create_server(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def __enter__(self) -> ScriptedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._sock.close()
        for conn in list(self._open):
            try:
                conn.close()
            except OSError:
                pass

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
                number = self.connections
                self._open.append(conn)
            threading.Thread(target=self._serve, args=(conn, number), daemon=True).start()

    def _next(self) -> Answer | str | None:
        with self._lock:
            return self.script.pop(0) if self.script else None if self.forward else Answer()

    def _forwarded(self, request: Request) -> Answer:
        import http.client
        from urllib.parse import urlsplit

        target = urlsplit(self.forward)
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        try:
            headers = {k: v for k, v in request.headers.items() if k not in ("host", "content-length")}
            conn.request(request.method, request.target, request.body or None, headers)
            answer = conn.getresponse()
            body = answer.read()
            kept = {k: v for k, v in answer.getheaders()
                    if k.lower() in ("content-type", "x-amzn-requestid", "x-amz-crc32", "x-amzn-errortype")}
            return Answer(answer.status, body, kept)
        finally:
            conn.close()

    def _serve(self, conn: socket.socket, number: int) -> None:
        if self.tls is not None:
            try:
                conn = self.tls.wrap_socket(conn, server_side=True)
            except OSError:
                conn.close()
                return
        reader = conn.makefile("rb")
        try:
            while True:
                line = reader.readline()
                if not line:
                    return
                method, target, _ = line.decode().split(" ", 2)
                headers = {}
                while (line := reader.readline()) not in (b"\r\n", b""):
                    name, _, value = line.decode().partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = reader.read(int(headers.get("content-length", "0")))
                request = Request(method, target, headers, body, number)
                with self._lock:
                    self.requests.append(request)
                answer = self._next()
                if answer == DROP:
                    return
                if answer == SILENT:
                    continue  # (reading the next request waits until the client closes)
                answer = self._forwarded(request) if answer is None else answer
                assert isinstance(answer, Answer)
                if answer.stall:
                    whole = _render(answer)
                    conn.sendall(whole[:len(whole) - max(1, len(_body(answer)) // 2)])
                    continue
                conn.sendall(_render(answer))
                if answer.close or answer.vanish:
                    return
        except OSError:
            return
        finally:
            reader.close()
            conn.close()


def _body(answer: Answer) -> bytes:
    body = answer.body
    return body if isinstance(body, bytes) else body.encode() if isinstance(body, str) else json.dumps(body).encode()


def _render(answer: Answer) -> bytes:
    data = _body(answer)
    head = [f"HTTP/1.1 {answer.status} X", *(f"{k}: {v}" for k, v in answer.headers.items())]
    if answer.close:
        head.append("Connection: close")
    if answer.chunked:
        head.append("Transfer-Encoding: chunked")
        half = len(data) // 2
        data = b"".join(f"{len(part):x}\r\n".encode() + part + b"\r\n" for part in (data[:half], data[half:]) if part)
        data += b"0\r\n\r\n"
    else:
        head.append(f"Content-Length: {len(data)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + data


def self_signed(directory: Any) -> tuple[str, Any]:
    """A certificate for 127.0.0.1 (its own CA): (the PEM file a client trusts, the server's SSLContext)."""
    import datetime as dtm
    import ipaddress
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dtm.datetime.now(dtm.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dtm.timedelta(days=1)).not_valid_after(now + dtm.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    return str(cert_file), context
