"""The playground's web page and its small JSON API (Flask), served on 127.0.0.1 only.

``GET /`` the page (``localdev/static``): the group and every player's private chat side by side;
``/?as=<user_id>`` shows one player's private chat beside the group and acts as that player.

API (JSON bodies; ``as`` is the acting player's user id):
    ``GET  /api/state?since=<version>&as=<id>``  long poll: answers when something changed after
         ``since`` (or after ~20 s) with :meth:`Playground.snapshot`.
    ``POST /api/press {as, chat, message, data}``  press an inline button -> ``{status, text, alert}``
    ``POST /api/send  {as, chat, text}``           type a message or command in a chat
    ``POST /api/start {as, payload}``              open the bot's private chat (t.me deep link / Start)
    ``POST /api/seat  {players: [{name, simulated, lang}], open_lobby}``  seat the table (1-10 players: under
         5, the host fills the table with the lobby's 🤖 Add a bot, AI seats; ``simulated``: the seat is
         played by a simulated player; ``lang``: the seat's app language, "" for none: the group's)
    ``POST /api/speed {sim_delay}``                seconds between two moves of the simulated players
    ``GET  /api/file/<file_id>``                   a photo the bot sent (sendPhoto bytes)

Requests must come to 127.0.0.1/localhost (no DNS rebinding) and POSTs must be JSON (a page on
another site cannot post JSON here without a CORS preflight, which is never granted).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask, Response, abort, jsonify, request, send_from_directory

from localdev.playground import MAX_SEATS

STATIC = Path(__file__).resolve().parent / "static"
LONG_POLL_SECONDS = 20.0
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def _sniff(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data.startswith(b"\xff\xd8"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"


def create_app(pg: Any) -> Flask:
    app = Flask(__name__, static_folder=None)

    @app.before_request
    def only_local() -> None:
        if request.host.rsplit(":", 1)[0].strip("[]") not in LOCAL_HOSTS:
            abort(403)
        if request.method == "POST" and not request.is_json:
            abort(415)

    def body() -> dict[str, Any]:
        data = request.get_json(silent=True)
        if not isinstance(data, dict):
            abort(400)
        return data

    def acting(data: dict[str, Any]) -> int:
        try:
            uid = int(data.get("as"))
        except (TypeError, ValueError):
            abort(400)
        if uid not in pg.users:
            abort(404)
        return uid

    def refused(exc: Exception, status: int = 400) -> Response:
        response = jsonify({"error": str(exc)})
        response.status_code = status
        return response

    @app.get("/")
    def index() -> Response:
        response = send_from_directory(STATIC, "index.html")
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.get("/static/<path:name>")
    def static_file(name: str) -> Response:
        response = send_from_directory(STATIC, name)
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.get("/api/state")
    def state() -> Response:
        since = request.args.get("since", type=int, default=-1)
        viewer = request.args.get("as", type=int)
        if viewer is not None and viewer not in pg.users:
            viewer = None
        if 0 <= since <= pg.fake.version:  # a page from before a restart is answered at once
            pg.fake.wait_changed(since, LONG_POLL_SECONDS)
        return jsonify(pg.snapshot(viewer))

    def as_player(action: Any) -> Response:
        """Run ``action(user id, body)`` for the acting player; bad input 400, a foreign chat 403."""
        data = body()
        uid = acting(data)
        try:
            return jsonify(action(uid, data))
        except PermissionError as exc:
            return refused(exc, 403)
        except (KeyError, TypeError, ValueError, LookupError) as exc:
            return refused(exc)

    @app.post("/api/press")
    def press() -> Response:
        return as_player(lambda uid, d: pg.press(uid, int(d["chat"]), int(d["message"]), str(d["data"])))

    @app.post("/api/send")
    def send() -> Response:
        return as_player(lambda uid, d: {"status": pg.send(uid, int(d["chat"]), str(d.get("text", "")))})

    @app.post("/api/start")
    def start() -> Response:
        data = body()
        uid = acting(data)
        payload = data.get("payload")
        return jsonify({"status": pg.open_private(uid, str(payload) if payload else None)})

    @app.post("/api/seat")
    def seat() -> Response:
        data = body()
        players = data.get("players")
        if not isinstance(players, list) or not 1 <= len(players) <= MAX_SEATS:
            return refused(ValueError(f"seat 1 to {MAX_SEATS} players"))
        try:
            seats = pg.seat([p for p in players if isinstance(p, dict)], open_lobby=bool(data.get("open_lobby", True)))
        except ValueError as exc:
            return refused(exc)
        return jsonify({"seats": [{"id": s.user_id, "name": s.name, "simulated": s.simulated, "lang": s.lang}
                                  for s in seats]})

    @app.post("/api/speed")
    def speed() -> Response:
        try:
            delay = float(body().get("sim_delay"))
        except (TypeError, ValueError):
            abort(400)
        pg.sim_delay = min(max(delay, 0.0), 10.0)
        pg.wake()
        return jsonify({"sim_delay": pg.sim_delay})

    @app.get("/api/file/<file_id>")
    def file(file_id: str) -> Response:
        data = pg.file(file_id)
        if data is None:
            abort(404)
        return Response(data, mimetype=_sniff(data), headers={"Cache-Control": "max-age=3600"})

    return app
