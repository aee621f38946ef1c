"""A fake Telegram Bot API server on 127.0.0.1, for tests and the local playground.

Point the bot at it with ``TELEGRAM_API_BASE_URL=fake.base_url``: requests arrive as
``POST {base_url}/bot<token>/<method>`` (python-telegram-bot: ``telegram.Bot(token,
base_url=f"{fake.base_url}/bot")``). Bodies may be JSON, form-encoded (what PTB sends: every
non-string value JSON-encoded) or multipart (uploads); all are parsed. Answers are Telegram-shaped:
``{"ok": true, "result": ...}`` or ``{"ok": false, "error_code", "description", "parameters"}``
with the same HTTP status.

Life cycle
    ``FakeTelegram(*, token=None, bot=updates.BOT)``; ``token`` set: other tokens get 401.
    ``.start()`` -> self (ThreadingHTTPServer on a free port, background thread), ``.stop()``,
    ``with FakeTelegram() as fake: ...``; ``.base_url`` "http://127.0.0.1:PORT";
    ``.api_url(token="TEST:TOKEN")`` -> f"{base_url}/bot{token}" (the PTB base_url is base_url+"/bot").
    ``.reset()`` forgets messages, calls, faults, users, groups, webhook and commands.

Methods implemented
    getMe, sendMessage, editMessageText, editMessageReplyMarkup, editMessageCaption, deleteMessage,
    answerCallbackQuery, sendPhoto (multipart upload: bytes kept in ``.files``; or a file_id/URL string),
    sendChatAction, pinChatMessage, unpinChatMessage, setWebhook, deleteWebhook, getWebhookInfo,
    setMyCommands, getMyCommands, deleteMyCommands, setMyDescription, setMyShortDescription,
    setChatMenuButton, getChat, getChatMember, getChatAdministrators, getChatMemberCount, leaveChat,
    getUpdates. Unknown methods: 404 "Not Found: method not found".

Long polling (``getUpdates``)
    ``.push_update(update)`` queues an Update dict (what Telegram holds for a bot without a webhook);
    ``.pending_updates()`` lists the queue. getUpdates answers the queued updates with
    ``update_id >= offset`` (at most ``limit``, default 100) and forgets those below ``offset`` (they
    are confirmed); a negative offset keeps only the last ``-offset`` updates; ``allowed_updates``
    filters by update type (skipped ones are dropped). With nothing to answer it waits up to
    ``timeout`` seconds (default 0) for a push. While a webhook is set it fails with 409 "Conflict:
    can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook
    first"; ``deleteWebhook(drop_pending_updates=True)`` empties the queue; getWebhookInfo reports
    ``pending_update_count``.

Telegram behaviour reproduced
    * message ids are assigned per chat (1, 2, ...); edits apply in place (``edit_date`` set);
      ``reply_markup`` (inline keyboards only) is kept; editMessageText/Caption without
      reply_markup removes the keyboard, as Telegram does.
    * private chats (positive ids): sendMessage/sendPhoto to a user who has not ``start_private``-ed
      -> 403 "Forbidden: bot can't initiate conversation with a user"; a ``block``-ed user -> 403
      "Forbidden: bot was blocked by the user" (also for edits/deletes there).
    * groups (negative ids) are known on first use; after leaveChat or ``.kick(chat_id)`` sending
      there -> 403 "Forbidden: bot is not a member of the group chat" / "bot was kicked from the
      group chat" ("supergroup chat" for -100... ids).
    * an edit with identical text and markup -> 400 "Bad Request: message is not modified: ...";
      missing message -> 400 "Bad Request: message to edit not found" / "message to delete not
      found"; text over 4096 characters (caption 1024) after entity parsing, empty text,
      parse_mode=HTML with an unsupported/unclosed/mismatched tag or a stray "<", MarkdownV2 with
      an unescaped reserved character (``#+-={}.!``), inline buttons without an action or with
      callback_data outside 1-64 bytes -> 400 like Telegram's.

Users and groups (``u`` is a user id or a user dict from ``localdev.updates.user``)
    ``.start_private(u)`` (also unblocks), ``.block(u)``, ``.unblock(u)``, ``.started(user_id)``;
    ``.add_group(chat_id, title=None)``; ``.set_member(chat_id, u, status)`` (creator,
    administrator, member, left, kicked); ``.set_admins(chat_id, *users, creator=None)``;
    ``.kick(chat_id)`` (the bot was removed). getChatMember answers "member" for unknown users;
    getChatAdministrators lists creator + administrators.

Latency (off by default)
    ``.latency = (min, max)``: every call that posts or changes a message takes a random time in that
    range (seconds, seeded) before it is applied, so that calls made at the same time by several clients
    land in any order, as on Telegram. ``.reset()`` turns it off.

Fault injection
    ``.inject(method, status=None, description=None, retry_after=None, times=1, chat_id=None,
    delay=None, migrate_to_chat_id=None) -> Fault``: the next ``times`` calls (None: all) of
    ``method`` ("*": any method), optionally only for ``chat_id``, first sleep ``delay`` seconds
    (timeout simulation; with no status the call then succeeds) and, with ``status``
    (429, 400, 403, 500, 502, ...), fail with ``{"ok": false, "error_code": status, "description":
    description or a default, "parameters": {"retry_after": retry_after}}`` (429 defaults
    retry_after to 1). PTB raises RetryAfter / BadRequest / Forbidden / NetworkError for these.
    ``Fault.hits`` counts the calls it caught. ``.clear_faults()``.

Flood control (off by default)
    ``.flood_control(per_group_per_minute=20, max_retry_after=60, clock=None, long_rate=0.0, seed=0,
    spurious_rate=0.0)``
    -> ``localdev.flood.FloodControl``: Telegram's limit of messages and edits per minute in a group,
    on ``clock`` (a test's clock; default ``time.monotonic``): over it, 429 "Too Many Requests: retry
    after N" with ``parameters.retry_after``, the group closed until then (see ``localdev.flood``).
    ``per_group_per_minute=None`` turns it off again (so does ``.reset()``); ``.flood`` is the model.

Webhook replies
    ``.perform(method)`` performs the Bot API method a webhook answered with (``{"method": ...,
    params}``), as Telegram does with the webhook's reply.

Inspection (all return copies; message dicts are Telegram Message dicts: message_id, date,
chat, from, text or caption+photo, reply_markup, edit_date)
    ``.calls``: flat list of ``Call(method, params)`` named tuples (every request, also failed ones;
    uploads appear as ``{"filename", "size", "content_type"}``); ``.calls_to(method)`` -> params list.
    ``.messages(chat_id)`` (current, in order, deleted ones gone), ``.message(chat_id, message_id)``,
    ``.last(chat_id)`` (None if the chat is empty), ``.texts(chat_id)`` (text or caption of each),
    ``.buttons(chat_id, message_id=None)`` -> flat list of ``{"text", "callback_data" or "url",
    "message_id", "chat_id", "row", "col"}`` of that message, or of the newest message that has
    inline buttons; ``.deleted`` list of (chat_id, message_id); ``.files`` {file_id: bytes};
    ``.webhook`` dict; ``.commands`` {(scope json, language_code): [commands]};
    ``.chat_ids()`` chats with messages. ``.answers`` {callback_query_id: answerCallbackQuery params}
    (the toast, alert or URL a press got).

Chat history and change notification (for the local playground's page)
    ``.user_message(chat_id, u, text, entities=None)`` records a message a user sent in a chat (so
    the history shows both sides; ids share the chat's sequence, as on Telegram) and returns it; the
    bot cannot edit it. ``.version`` increases on every change of what a chat shows (messages,
    edits, deletes, pins, answers, users, groups, resets, ``.touch()``);
    ``.wait_changed(since, timeout)`` blocks until ``version > since`` (or the timeout) and returns
    the version.
"""
from __future__ import annotations

import copy
import email.parser
import email.policy
import functools
import html
import json
import random
import re
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, urlsplit

from localdev.flood import LIMITED, FloodControl, flood_payload
from localdev.updates import BOT, chat_member

JSON = dict[str, Any]

TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024

# Parameters whose (form-encoded) value stays a string even if it looks like JSON.
_STRING_PARAMS = {
    "text", "caption", "callback_query_id", "url", "secret_token", "parse_mode", "title", "description",
    "short_description", "name", "language_code", "inline_message_id", "ip_address", "action",
    "business_connection_id", "message_effect_id", "photo", "document", "sticker", "emoji",
}

_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request: injected fault",
    401: "Unauthorized",
    403: "Forbidden: injected fault",
    404: "Not Found",
    409: "Conflict: injected fault",
    429: "Too Many Requests: retry after {retry_after}",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}

NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup are exactly "
    "the same as a current content and reply markup of the message"
)

_HTML_TAGS = {
    "b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "span", "tg-spoiler", "a", "code", "pre",
    "blockquote", "tg-emoji", "tg-time",
}
_BUTTON_ACTIONS = {
    "url", "callback_data", "web_app", "login_url", "switch_inline_query",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text", "callback_game",
    "pay",
}


# Methods that change nothing a chat shows (no version bump).
_READ_ONLY = {
    name.lower() for name in (
        "getMe", "getWebhookInfo", "getMyCommands", "getChat", "getChatMember", "getChatAdministrators",
        "getChatMemberCount", "getUpdates", "sendChatAction",
    )
}

_UPDATE_TYPES = (
    "message", "edited_message", "channel_post", "edited_channel_post", "business_connection",
    "business_message", "edited_business_message", "deleted_business_messages", "message_reaction",
    "message_reaction_count", "inline_query", "chosen_inline_result", "callback_query", "shipping_query",
    "pre_checkout_query", "purchased_paid_media", "poll", "poll_answer", "my_chat_member", "chat_member",
    "chat_join_request", "chat_boost", "removed_chat_boost",
)


class Call(NamedTuple):
    method: str
    params: JSON


@dataclass
class Fault:
    method: str
    status: int | None = None
    description: str | None = None
    retry_after: int | None = None
    times: int | None = 1
    chat_id: int | str | None = None
    delay: float | None = None
    migrate_to_chat_id: int | None = None
    hits: int = 0

    def matches(self, method: str, params: JSON) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.method != "*" and self.method.lower() != method.lower():
            return False
        return self.chat_id is None or str(params.get("chat_id")) == str(self.chat_id)


class ApiError(Exception):
    def __init__(self, status: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.parameters = parameters

    def payload(self) -> JSON:
        out: JSON = {"ok": False, "error_code": self.status, "description": self.description}
        if self.parameters:
            out["parameters"] = self.parameters
        return out


def _bad(description: str) -> ApiError:
    return ApiError(400, f"Bad Request: {description}")


# -- request parsing ----------------------------------------------------------------------------


def _decode_value(name: str, value: str) -> Any:
    if name in _STRING_PARAMS:
        return value
    if value in ("true", "false"):
        return value == "true"
    if re.fullmatch(r"-?\d+", value):
        return int(value)
    if value[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def parse_request(content_type: str, raw: bytes, query: str = "") -> tuple[JSON, dict[str, JSON]]:
    """(params, files) of a Bot API request: JSON, form-encoded or multipart, plus query string."""
    params: JSON = {k: _decode_value(k, v) for k, v in parse_qsl(query, keep_blank_values=True)}
    files: dict[str, JSON] = {}
    ctype = content_type.split(";", 1)[0].strip().lower()
    if ctype == "application/json" and raw.strip():
        body = json.loads(raw)
        if isinstance(body, dict):
            params.update(body)
    elif ctype == "application/x-www-form-urlencoded":
        for k, v in parse_qsl(raw.decode("utf-8"), keep_blank_values=True):
            params[k] = _decode_value(k, v)
    elif ctype == "multipart/form-data":
        head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if not name:
                continue
            data = part.get_payload(decode=True) or b""
            filename = part.get_filename()
            if filename is not None:
                files[name] = {"filename": filename, "content": data, "content_type": part.get_content_type()}
            else:
                params[name] = _decode_value(name, data.decode(part.get_content_charset() or "utf-8"))
    for name, value in list(params.items()):  # attach://<part> references
        if isinstance(value, str) and value.startswith("attach://") and value[9:] in files:
            files[name] = files.pop(value[9:])
            del params[name]
    return params, files


# -- formatting checks --------------------------------------------------------------------------


def _byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


def html_to_plain(text: str) -> str:
    """The visible text of a parse_mode=HTML string; ApiError 400 where Telegram would refuse it."""
    out: list[str] = []
    stack: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "<":
            j = text.find("<", i)
            j = len(text) if j < 0 else j
            out.append(html.unescape(text[i:j]))
            i = j
            continue
        end = text.find(">", i)
        if end < 0:
            raise _bad(f"can't parse entities: Unclosed start tag at byte offset {_byte_offset(text, i)}")
        inner = text[i + 1:end]
        if inner.startswith("/"):
            name = inner[1:].strip().lower()
            if not stack:
                raise _bad(f'can\'t parse entities: Unexpected end tag at byte offset {_byte_offset(text, i)}')
            if name != stack[-1]:
                raise _bad(
                    f"can't parse entities: Unmatched end tag at byte offset {_byte_offset(text, i)}, "
                    f'expected "</{stack[-1]}>", found "</{name}>"'
                )
            stack.pop()
        else:
            name = re.split(r"[\s/]", inner, maxsplit=1)[0].lower()
            if name not in _HTML_TAGS:
                raise _bad(
                    f'can\'t parse entities: Unsupported start tag "{name}" at byte offset {_byte_offset(text, i)}'
                )
            if name == "a" and not re.search(r"href\s*=", inner):
                pass  # Telegram accepts <a> without href (no link)
            stack.append(name)
        i = end + 1
    if stack:
        raise _bad(f'can\'t parse entities: Can\'t find end tag corresponding to start tag "{stack[-1]}"')
    return "".join(out)


_MD2_ALWAYS_RESERVED = set("#+-={}.!")


def markdown_v2_to_plain(text: str) -> str:
    """A MarkdownV2 string's visible text (roughly); ApiError 400 for an unescaped reserved character."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
            continue
        if ch == "`":  # code span / pre block: contents are literal
            fence = "```" if text.startswith("```", i) else "`"
            end = text.find(fence, i + len(fence))
            if end < 0:
                raise _bad(f"can't parse entities: Can't find end of Pre entity at byte offset {_byte_offset(text, i)}")
            out.append(text[i + len(fence):end])
            i = end + len(fence)
            continue
        if ch == "]" and text.startswith("](", i):  # link target: skip to the closing parenthesis
            end = text.find(")", i + 2)
            if end < 0:
                raise _bad(f"can't parse entities: Can't find end of a URL at byte offset {_byte_offset(text, i)}")
            i = end + 1
            continue
        if ch in _MD2_ALWAYS_RESERVED:
            raise _bad(f"can't parse entities: Character '{ch}' is reserved and must be escaped with the preceding '\\'")
        if ch not in "*_~|[]()>":
            out.append(ch)
        i += 1
    return "".join(out)


def visible_text(text: str, parse_mode: str | None) -> str:
    mode = (parse_mode or "").lower()
    if mode == "html":
        return html_to_plain(text)
    if mode == "markdownv2":
        return markdown_v2_to_plain(text)
    return text


def _utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


# -- the server ---------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: FakeTelegram


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        pass

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        raw = self._body()
        url = urlsplit(self.path)
        match = re.fullmatch(r"/bot([^/]+)/([A-Za-z]+)/?", url.path)
        if match is None:
            status, payload = 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        else:
            try:
                params, files = parse_request(self.headers.get("Content-Type", ""), raw, url.query)
            except (ValueError, UnicodeDecodeError) as exc:
                status, payload = 400, _bad(f"can't parse request: {exc}").payload()
            else:
                status, payload = self.server.fake.handle(match.group(1), match.group(2), params, files)
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_POST = _handle
    do_GET = _handle


class FakeTelegram:
    """See the module docstring for the full API."""

    def __init__(self, *, token: str | None = None, bot: JSON | None = None) -> None:
        self.token = token
        self.bot = dict(bot or BOT)
        self._lock = threading.RLock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._changed = threading.Condition(self._lock)
        self._version = 0
        self.reset()

    # -- life cycle ----------------------------------------------------------------------------

    def start(self) -> FakeTelegram:
        if self._server is not None:
            return self
        self._stopping.clear()
        server = _Server(("127.0.0.1", 0), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-telegram", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._stopping.set()  # wakes injected delays
        self.touch()  # and long polls
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = None
        self._thread = None

    def __enter__(self) -> FakeTelegram:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("FakeTelegram is not started")
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def api_url(self, token: str = "TEST:TOKEN") -> str:
        return f"{self.base_url}/bot{token}"

    def reset(self) -> None:
        with self._lock:
            # a call still in flight (an injected delay) belongs to the state before: it changes nothing
            self._generation = getattr(self, "_generation", 0) + 1
            self.calls: list[Call] = []
            self.faults: list[Fault] = []
            self._messages: dict[int, list[JSON]] = {}
            self._next_message_id: dict[int, int] = {}
            self.deleted: list[tuple[int, int]] = []
            self.files: dict[str, bytes] = {}
            self._users: dict[int, JSON] = {}
            self._started: set[int] = set()
            self._blocked: set[int] = set()
            self._groups: dict[int, JSON] = {}
            self._members: dict[int, dict[int, str]] = {}
            self._left: set[int] = set()
            self._kicked: set[int] = set()
            self.pinned: dict[int, int] = {}
            self.webhook: JSON = {}
            self.commands: dict[tuple[str, str], list[JSON]] = {}
            self.answers: dict[str, JSON] = {}
            self.latency: tuple[float, float] | None = None  # (min, max) seconds each sending or editing call takes
            self._latency_rng = random.Random(0)
            self._updates: list[JSON] = []
            self._file_counter = 0
            self.flood: FloodControl | None = None
            self._bump()

    # -- change notification -------------------------------------------------------------------

    def _bump(self) -> None:
        """Record a change (called with the lock held) and wake whoever waits for one."""
        self._version += 1
        self._changed.notify_all()

    def touch(self) -> int:
        """Signal a change made outside the Bot API (e.g. by the playground); returns the version."""
        with self._lock:
            self._bump()
            return self._version

    @property
    def version(self) -> int:
        with self._lock:
            return self._version

    def wait_changed(self, since: int, timeout: float) -> int:
        """Block until the version is above ``since`` or ``timeout`` seconds passed; the version."""
        deadline = time.monotonic() + max(0.0, timeout)
        with self._lock:
            while self._version <= since and not self._stopping.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            return self._version

    # -- long polling --------------------------------------------------------------------------

    def push_update(self, update: JSON) -> None:
        """Queue an Update for getUpdates (Telegram holding it for a bot that polls)."""
        with self._lock:
            self._updates.append(copy.deepcopy(update))
            self._bump()

    def pending_updates(self) -> list[JSON]:
        with self._lock:
            return copy.deepcopy(self._updates)

    # -- chat history --------------------------------------------------------------------------

    def user_message(self, chat_id: int, u: JSON | int, text: str, entities: list[JSON] | None = None) -> JSON:
        """A message ``u`` sent in ``chat_id``, kept in the chat's history; returns the Message dict."""
        with self._lock:
            uid = self._remember(u)
            fields: JSON = {"text": text, "from": self._user(uid)}
            if entities:
                fields["entities"] = copy.deepcopy(entities)
            msg = self._new_message(int(chat_id), fields, {})
            self._bump()
            return copy.deepcopy(msg)

    # -- users, groups, faults -----------------------------------------------------------------

    def _remember(self, u: JSON | int) -> int:
        if isinstance(u, dict):
            self._users[u["id"]] = dict(u)
            return int(u["id"])
        return int(u)

    def start_private(self, u: JSON | int) -> None:
        """The user opened the bot's private chat (pressed Start): the bot may now message them."""
        with self._lock:
            uid = self._remember(u)
            self._started.add(uid)
            self._blocked.discard(uid)
            self._bump()

    def block(self, u: JSON | int) -> None:
        with self._lock:
            self._blocked.add(self._remember(u))
            self._bump()

    def unblock(self, u: JSON | int) -> None:
        with self._lock:
            self._blocked.discard(self._remember(u))
            self._bump()

    def started(self, user_id: int) -> bool:
        with self._lock:
            return user_id in self._started and user_id not in self._blocked

    def add_group(self, chat_id: int, title: str | None = None) -> None:
        with self._lock:
            chat = self._group_chat(chat_id)
            if title:
                chat["title"] = title
            self._left.discard(chat_id)
            self._kicked.discard(chat_id)
            self._bump()

    def set_member(self, chat_id: int, u: JSON | int, status: str) -> None:
        chat_member(status, 0)  # validates the status
        with self._lock:
            self._members.setdefault(chat_id, {})[self._remember(u)] = status

    def set_admins(self, chat_id: int, *users: JSON | int, creator: JSON | int | None = None) -> None:
        with self._lock:
            members = self._members.setdefault(chat_id, {})
            for uid, status in list(members.items()):
                if status in ("creator", "administrator"):
                    members[uid] = "member"
            if creator is not None:
                members[self._remember(creator)] = "creator"
            for u in users:
                members[self._remember(u)] = "administrator"

    def kick(self, chat_id: int) -> None:
        """The bot was removed from the group: sending there now fails with 403."""
        with self._lock:
            self._kicked.add(chat_id)
            self._bump()

    def inject(
        self,
        method: str,
        status: int | None = None,
        description: str | None = None,
        retry_after: int | None = None,
        times: int | None = 1,
        chat_id: int | str | None = None,
        delay: float | None = None,
        migrate_to_chat_id: int | None = None,
    ) -> Fault:
        if status is None and delay is None:
            raise ValueError("inject needs a status, a delay or both")
        if status == 429 and retry_after is None:
            retry_after = 1
        fault = Fault(method, status, description, retry_after, times, chat_id, delay, migrate_to_chat_id)
        with self._lock:
            self.faults.append(fault)
        return fault

    def flood_control(self, per_group_per_minute: int | None = 20, max_retry_after: int = 60, clock: Any = None,
                      long_rate: float = 0.0, seed: int = 0, spurious_rate: float = 0.0) -> FloodControl | None:
        """Telegram's flood control from now on (None: off); see the module docstring."""
        with self._lock:
            self.flood = None if per_group_per_minute is None else FloodControl(
                per_group_per_minute, max_retry_after, clock or time.monotonic, long_rate, seed, spurious_rate)
            return self.flood

    def clear_faults(self) -> None:
        with self._lock:
            self.faults.clear()

    # -- inspection ----------------------------------------------------------------------------

    def calls_to(self, method: str) -> list[JSON]:
        with self._lock:
            return [copy.deepcopy(c.params) for c in self.calls if c.method.lower() == method.lower()]

    def chat_ids(self) -> list[int]:
        with self._lock:
            return [cid for cid, msgs in self._messages.items() if msgs]

    def messages(self, chat_id: int) -> list[JSON]:
        with self._lock:
            return copy.deepcopy(self._messages.get(chat_id, []))

    def message(self, chat_id: int, message_id: int) -> JSON | None:
        with self._lock:
            found = self._find(chat_id, message_id)
            return copy.deepcopy(found) if found else None

    def last(self, chat_id: int) -> JSON | None:
        with self._lock:
            msgs = self._messages.get(chat_id) or []
            return copy.deepcopy(msgs[-1]) if msgs else None

    def texts(self, chat_id: int) -> list[str]:
        return [m.get("text", m.get("caption", "")) for m in self.messages(chat_id)]

    def buttons(self, chat_id: int, message_id: int | None = None) -> list[JSON]:
        with self._lock:
            if message_id is not None:
                msg = self._find(chat_id, message_id)
            else:
                msg = next((m for m in reversed(self._messages.get(chat_id, [])) if m.get("reply_markup")), None)
            if msg is None:
                return []
            out = []
            rows = (msg.get("reply_markup") or {}).get("inline_keyboard", [])
            for r, row in enumerate(rows):
                for c, button in enumerate(row):
                    entry = {k: v for k, v in button.items() if k in ("text", "callback_data", "url")}
                    entry.update(message_id=msg["message_id"], chat_id=chat_id, row=r, col=c)
                    out.append(entry)
            return out

    # -- dispatch ------------------------------------------------------------------------------

    def handle(self, token: str, method: str, params: JSON, files: dict[str, JSON]) -> tuple[int, JSON]:
        """Answer one API call: (HTTP status, JSON payload)."""
        logged = dict(params)
        for name, f in files.items():
            logged[name] = {"filename": f["filename"], "size": len(f["content"]), "content_type": f["content_type"]}
        with self._lock:
            generation = self._generation
            self.calls.append(Call(method, logged))
            fault = next((f for f in self.faults if f.matches(method, params)), None)
            if fault is not None:
                fault.hits += 1
        if fault is not None and fault.delay:
            self._stopping.wait(fault.delay)
        latency = self.latency
        if latency is not None and method.lower() in LIMITED:  # a call in flight: a later one may land first
            with self._lock:
                took = self._latency_rng.uniform(*latency)
            self._stopping.wait(took)
        if fault is not None and fault.status is not None:
            return fault.status, self._fault_payload(fault)
        if self.token is not None and token != self.token:
            return 401, {"ok": False, "error_code": 401, "description": "Unauthorized"}
        handler = self._handlers.get(method.lower())
        if handler is None:
            return 404, {"ok": False, "error_code": 404, "description": "Not Found: method not found"}
        with self._lock:
            if generation != self._generation:  # reset while this call waited: its client has moved on
                return 500, {"ok": False, "error_code": 500, "description": "Internal Server Error: reset"}
            wait = self.flood.refuse(method, params.get("chat_id")) if self.flood is not None else None
            if wait is not None:
                return 429, flood_payload(wait)
            try:
                result = handler(params, files)
            except ApiError as exc:
                return exc.status, exc.payload()
            except (KeyError, TypeError, ValueError) as exc:
                return 400, _bad(f"invalid parameters: {exc!r}").payload()
            if self.flood is not None:
                self.flood.accept(method, params.get("chat_id"))
            if method.lower() not in _READ_ONLY:
                self._bump()
            return 200, {"ok": True, "result": copy.deepcopy(result)}

    def perform(self, method: JSON | None, token: str | None = None) -> tuple[int, JSON] | None:
        """Perform the Bot API method a webhook answered with, as Telegram does once it has the answer
        (``localdev.updates.webhook_reply``); None when there is none."""
        if not method:
            return None
        params = {k: v for k, v in method.items() if k != "method"}
        return self.handle(token if token is not None else (self.token or "TEST:TOKEN"), str(method["method"]),
                           params, {})

    @staticmethod
    def _fault_payload(fault: Fault) -> JSON:
        template = fault.description or _DEFAULT_DESCRIPTIONS.get(fault.status or 0, "Injected fault")
        payload: JSON = {
            "ok": False,
            "error_code": fault.status,
            "description": template.format(retry_after=fault.retry_after),
        }
        parameters: JSON = {}
        if fault.retry_after is not None:
            parameters["retry_after"] = fault.retry_after
        if fault.migrate_to_chat_id is not None:
            parameters["migrate_to_chat_id"] = fault.migrate_to_chat_id
        if parameters:
            payload["parameters"] = parameters
        return payload

    @functools.cached_property
    def _handlers(self) -> dict[str, Any]:
        table = {
            "getMe": self._get_me,
            "sendMessage": self._send_message,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "editMessageCaption": self._edit_message_caption,
            "deleteMessage": self._delete_message,
            "answerCallbackQuery": self._answer_callback_query,
            "sendPhoto": self._send_photo,
            "sendChatAction": self._send_chat_action,
            "pinChatMessage": self._pin,
            "unpinChatMessage": self._unpin,
            "setWebhook": self._set_webhook,
            "deleteWebhook": self._delete_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "setMyCommands": self._set_my_commands,
            "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "setMyDescription": self._true,
            "setMyShortDescription": self._true,
            "setChatMenuButton": self._true,
            "getChat": self._get_chat,
            "getChatMember": self._get_chat_member,
            "getChatAdministrators": self._get_chat_administrators,
            "getChatMemberCount": self._get_chat_member_count,
            "leaveChat": self._leave_chat,
            "getUpdates": self._get_updates,
        }
        return {name.lower(): fn for name, fn in table.items()}

    # -- helpers (called with the lock held) ---------------------------------------------------

    @staticmethod
    def _chat_id(params: JSON) -> int:
        value = params.get("chat_id")
        if value is None or value == "":
            raise _bad("chat_id is empty")
        if isinstance(value, str) and not re.fullmatch(r"-?\d+", value):
            raise _bad("chat not found")
        return int(value)

    def _group_chat(self, chat_id: int) -> JSON:
        if chat_id not in self._groups:
            kind = "supergroup" if str(chat_id).startswith("-100") else "group"
            self._groups[chat_id] = {"id": chat_id, "type": kind, "title": f"Group {chat_id}"}
        return self._groups[chat_id]

    def _private_chat(self, user_id: int) -> JSON:
        who = self._users.get(user_id, {"first_name": f"User {user_id}"})
        chat = {"id": user_id, "type": "private", "first_name": who.get("first_name", f"User {user_id}")}
        for key in ("last_name", "username"):
            if who.get(key):
                chat[key] = who[key]
        return chat

    def _chat(self, chat_id: int) -> JSON:
        return dict(self._private_chat(chat_id) if chat_id > 0 else self._group_chat(chat_id))

    def _user(self, user_id: int) -> JSON:
        if user_id == self.bot["id"]:
            return dict(self.bot)
        return dict(self._users.get(user_id) or {"id": user_id, "is_bot": False, "first_name": f"User {user_id}"})

    def _check_reachable(self, chat_id: int, *, sending: bool) -> None:
        if chat_id > 0:
            if chat_id in self._blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if sending and chat_id not in self._started:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
            return
        kind = self._group_chat(chat_id)["type"]
        kind = "supergroup" if kind == "supergroup" else "group"
        if chat_id in self._kicked:
            raise ApiError(403, f"Forbidden: bot was kicked from the {kind} chat")
        if chat_id in self._left:
            raise ApiError(403, f"Forbidden: bot is not a member of the {kind} chat")

    def _find(self, chat_id: int, message_id: int) -> JSON | None:
        for msg in self._messages.get(chat_id, []):
            if msg["message_id"] == message_id:
                return msg
        return None

    @staticmethod
    def _markup(params: JSON) -> JSON | None:
        markup = params.get("reply_markup")
        if isinstance(markup, str):
            markup = json.loads(markup)
        if not markup or "inline_keyboard" not in markup:
            return None  # reply keyboards / ForceReply are not part of the message
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise _bad("can't parse inline keyboard: field \"inline_keyboard\" must be an Array of Arrays")
        for row in rows:
            for button in row:
                if not str(button.get("text", "")):
                    raise _bad("can't parse inline keyboard button: Text must be non-empty")
                actions = [k for k in button if k in _BUTTON_ACTIONS]
                if not actions:
                    raise _bad("can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard")
                if "callback_data" in button and not 1 <= len(str(button["callback_data"]).encode()) <= 64:
                    raise _bad("BUTTON_DATA_INVALID")
                if "url" in button and not re.match(r"(https?|tg)://", str(button["url"])):
                    raise _bad("BUTTON_URL_INVALID")
        rows = [row for row in rows if row]
        return {"inline_keyboard": rows} if rows else None

    @staticmethod
    def _checked_text(text: Any, parse_mode: str | None, *, caption: bool = False) -> str:
        if text is None:
            text = ""
        text = str(text)
        plain = visible_text(text, parse_mode)
        limit = CAPTION_LIMIT if caption else TEXT_LIMIT
        if not caption and not plain.strip():
            raise _bad("message text is empty")
        if _utf16_len(plain) > limit:
            raise _bad("message caption is too long" if caption else "message is too long")
        return text

    def _new_message(self, chat_id: int, fields: JSON, params: JSON) -> JSON:
        message_id = self._next_message_id.get(chat_id, 1)
        self._next_message_id[chat_id] = message_id + 1
        msg: JSON = {
            "message_id": message_id,
            "from": dict(self.bot),
            "chat": self._chat(chat_id),
            "date": int(time.time()),
        }
        reply = params.get("reply_parameters") or {}
        reply_to = reply.get("message_id") if isinstance(reply, dict) else None
        reply_to = reply_to or params.get("reply_to_message_id")
        if reply_to:
            original = self._find(chat_id, int(reply_to))
            msg["reply_to_message"] = copy.deepcopy(original) if original else {
                "message_id": int(reply_to), "chat": self._chat(chat_id), "date": msg["date"],
            }
            msg["reply_to_message"].pop("reply_to_message", None)
        msg.update(fields)
        self._messages.setdefault(chat_id, []).append(msg)
        return msg

    def _target(self, params: JSON, missing: str) -> tuple[int, JSON]:
        if params.get("inline_message_id"):
            raise _bad(missing)  # inline messages are not modelled
        chat_id = self._chat_id(params)
        self._check_reachable(chat_id, sending=False)
        if params.get("message_id") is None:
            raise _bad("message identifier is not specified")
        msg = self._find(chat_id, int(params["message_id"]))
        if msg is None:
            raise _bad(missing)
        return chat_id, msg

    def _own(self, msg: JSON) -> JSON:
        if msg.get("from", {}).get("id") != self.bot["id"]:
            raise _bad("message can't be edited")
        return msg

    # -- methods -------------------------------------------------------------------------------

    def _true(self, params: JSON, files: dict[str, JSON]) -> bool:
        return True

    def _get_me(self, params: JSON, files: dict[str, JSON]) -> JSON:
        return {
            **self.bot,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def _send_message(self, params: JSON, files: dict[str, JSON]) -> JSON:
        chat_id = self._chat_id(params)
        self._check_reachable(chat_id, sending=True)
        text = self._checked_text(params.get("text"), params.get("parse_mode"))
        fields: JSON = {"text": text}
        markup = self._markup(params)
        if markup:
            fields["reply_markup"] = markup
        return self._new_message(chat_id, fields, params)

    def _send_photo(self, params: JSON, files: dict[str, JSON]) -> JSON:
        chat_id = self._chat_id(params)
        self._check_reachable(chat_id, sending=True)
        if "photo" in files:
            content = files["photo"]["content"]
            if not content:
                raise _bad("file must be non-empty")
            self._file_counter += 1
            file_id = f"photo-{self._file_counter}"
            self.files[file_id] = content
            size = len(content)
        elif params.get("photo"):
            file_id = str(params["photo"])
            size = len(self.files.get(file_id, b""))
        else:
            raise _bad("there is no photo in the request")
        fields: JSON = {
            "photo": [{"file_id": file_id, "file_unique_id": f"u{file_id}", "width": 800, "height": 600,
                       "file_size": size}],
        }
        if params.get("caption"):
            fields["caption"] = self._checked_text(params["caption"], params.get("parse_mode"), caption=True)
        markup = self._markup(params)
        if markup:
            fields["reply_markup"] = markup
        return self._new_message(chat_id, fields, params)

    def _edit_message_text(self, params: JSON, files: dict[str, JSON]) -> JSON:
        msg = self._own(self._target(params, "message to edit not found")[1])
        if "text" not in msg:
            raise _bad("there is no text in the message to edit")
        text = self._checked_text(params.get("text"), params.get("parse_mode"))
        markup = self._markup(params)
        if msg["text"] == text and msg.get("reply_markup") == markup:
            raise _bad(NOT_MODIFIED[len("Bad Request: "):])
        msg["text"] = text
        return self._apply_edit(msg, markup)

    def _edit_message_caption(self, params: JSON, files: dict[str, JSON]) -> JSON:
        msg = self._own(self._target(params, "message to edit not found")[1])
        if "text" in msg:
            raise _bad("there is no caption in the message to edit")
        caption = self._checked_text(params.get("caption"), params.get("parse_mode"), caption=True)
        markup = self._markup(params)
        if msg.get("caption", "") == caption and msg.get("reply_markup") == markup:
            raise _bad(NOT_MODIFIED[len("Bad Request: "):])
        if caption:
            msg["caption"] = caption
        else:
            msg.pop("caption", None)
        return self._apply_edit(msg, markup)

    def _edit_message_reply_markup(self, params: JSON, files: dict[str, JSON]) -> JSON:
        msg = self._own(self._target(params, "message to edit not found")[1])
        markup = self._markup(params)
        if msg.get("reply_markup") == markup:
            raise _bad(NOT_MODIFIED[len("Bad Request: "):])
        return self._apply_edit(msg, markup)

    @staticmethod
    def _apply_edit(msg: JSON, markup: JSON | None) -> JSON:
        if markup:
            msg["reply_markup"] = markup
        else:
            msg.pop("reply_markup", None)
        msg["edit_date"] = int(time.time())
        return msg

    def _delete_message(self, params: JSON, files: dict[str, JSON]) -> bool:
        chat_id, msg = self._target(params, "message to delete not found")
        self._messages[chat_id].remove(msg)
        self.deleted.append((chat_id, msg["message_id"]))
        return True

    def _answer_callback_query(self, params: JSON, files: dict[str, JSON]) -> bool:
        if not params.get("callback_query_id"):
            raise _bad("query is too old and response timeout expired or query ID is invalid")
        if len(str(params.get("text", ""))) > 200:
            raise _bad("MESSAGE_TOO_LONG")
        self.answers[str(params["callback_query_id"])] = dict(params)
        return True

    def _send_chat_action(self, params: JSON, files: dict[str, JSON]) -> bool:
        self._check_reachable(self._chat_id(params), sending=True)
        return True

    def _pin(self, params: JSON, files: dict[str, JSON]) -> bool:
        chat_id, msg = self._target(params, "message to pin not found")
        self.pinned[chat_id] = msg["message_id"]
        return True

    def _unpin(self, params: JSON, files: dict[str, JSON]) -> bool:
        chat_id = self._chat_id(params)
        self._check_reachable(chat_id, sending=False)
        self.pinned.pop(chat_id, None)
        return True

    def _set_webhook(self, params: JSON, files: dict[str, JSON]) -> bool:
        url = str(params.get("url", ""))
        local = re.match(r"http://(127\.0\.0\.1|localhost)[:/]", url)
        if url and not url.startswith("https://") and not local:  # Telegram wants HTTPS; local tests may not
            raise _bad("bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise _bad("bad webhook: secret token contains unallowed characters")
        self.webhook = {k: v for k, v in params.items() if k != "certificate"}
        if not url:
            self.webhook = {}
        return True

    def _delete_webhook(self, params: JSON, files: dict[str, JSON]) -> bool:
        self.webhook = {}
        if params.get("drop_pending_updates"):
            self._updates.clear()
        return True

    def _get_updates(self, params: JSON, files: dict[str, JSON]) -> list[JSON]:
        """Called with the lock held; waiting on the condition releases it."""
        if self.webhook.get("url"):
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is active; "
                                "use deleteWebhook to delete the webhook first")
        offset = int(params.get("offset") or 0)
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        timeout = max(float(params.get("timeout") or 0), 0.0)
        allowed = params.get("allowed_updates")
        if isinstance(allowed, str):
            allowed = json.loads(allowed)
        if allowed is not None and not isinstance(allowed, list):
            raise _bad("can't parse allowed_updates")
        wanted = set(allowed or _UPDATE_TYPES) - ({"chat_member", "message_reaction", "message_reaction_count"}
                                                 if not allowed else set())
        deadline = time.monotonic() + timeout
        while True:
            if offset < 0:
                del self._updates[:offset]
            elif offset:
                self._updates = [u for u in self._updates if u["update_id"] >= offset]
            self._updates = [u for u in self._updates if wanted & set(u)]  # skipped types are dropped
            if self._updates or self._stopping.is_set():
                break
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._changed.wait(left)
        return self._updates[:limit]

    def _get_webhook_info(self, params: JSON, files: dict[str, JSON]) -> JSON:
        info: JSON = {"url": self.webhook.get("url", ""), "has_custom_certificate": False,
                      "pending_update_count": len(self._updates)}
        if self.webhook.get("max_connections"):
            info["max_connections"] = int(self.webhook["max_connections"])
        if self.webhook.get("allowed_updates") is not None:
            info["allowed_updates"] = self.webhook["allowed_updates"]
        return info

    @staticmethod
    def _commands_key(params: JSON) -> tuple[str, str]:
        scope = params.get("scope") or {"type": "default"}
        return json.dumps(scope, sort_keys=True), str(params.get("language_code") or "")

    def _set_my_commands(self, params: JSON, files: dict[str, JSON]) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise _bad("commands must be an array of at most 100 BotCommand")
        for c in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", str(c.get("command", ""))):
                raise _bad("BOT_COMMAND_INVALID")
            if not 1 <= len(str(c.get("description", ""))) <= 256:
                raise _bad("BOT_COMMAND_DESCRIPTION_INVALID")
        self.commands[self._commands_key(params)] = commands
        return True

    def _get_my_commands(self, params: JSON, files: dict[str, JSON]) -> list[JSON]:
        return self.commands.get(self._commands_key(params), [])

    def _delete_my_commands(self, params: JSON, files: dict[str, JSON]) -> bool:
        self.commands.pop(self._commands_key(params), None)
        return True

    def _get_chat(self, params: JSON, files: dict[str, JSON]) -> JSON:
        chat_id = self._chat_id(params)
        if chat_id > 0 and chat_id not in self._started and chat_id not in self._users:
            raise _bad("chat not found")
        return {
            **self._chat(chat_id),
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": {
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        }

    def _get_chat_member(self, params: JSON, files: dict[str, JSON]) -> JSON:
        chat_id = self._chat_id(params)
        user_id = int(params["user_id"])
        if chat_id > 0:
            status = "member" if user_id in (chat_id, self.bot["id"]) else "left"
        else:
            self._check_reachable(chat_id, sending=False)
            status = self._members.get(chat_id, {}).get(user_id, "member")
        return chat_member(status, self._user(user_id))

    def _get_chat_administrators(self, params: JSON, files: dict[str, JSON]) -> list[JSON]:
        chat_id = self._chat_id(params)
        if chat_id > 0:
            raise _bad("there are no administrators in the private chat")
        self._check_reachable(chat_id, sending=False)
        members = self._members.get(chat_id, {})
        order = {"creator": 0, "administrator": 1}
        admins = sorted((order[s], uid) for uid, s in members.items() if s in order)
        return [chat_member(members[uid], self._user(uid)) for _, uid in admins]

    def _get_chat_member_count(self, params: JSON, files: dict[str, JSON]) -> int:
        chat_id = self._chat_id(params)
        if chat_id > 0:
            return 2
        self._check_reachable(chat_id, sending=False)
        present = [s for s in self._members.get(chat_id, {}).values() if s not in ("left", "kicked")]
        return len(present) + 1

    def _leave_chat(self, params: JSON, files: dict[str, JSON]) -> bool:
        chat_id = self._chat_id(params)
        if chat_id > 0:
            raise _bad("chat member status can't be changed in private chats")
        self._check_reachable(chat_id, sending=False)
        self._left.add(chat_id)
        return True
