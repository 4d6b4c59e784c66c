"""`sim table`: the web table, served by the standard library's ThreadingHTTPServer.

Bound to 127.0.0.1 only; the page and its scripts are served from memory, the
game lives in a `TableSession`, and nothing is written but the game logs in
the log folder. The JSON API:

    GET  /                       the page
    GET  /api/state[?seat=N]     the state as seat N may see it (no seat: nobody's hand)
    POST /api/action             {"seat": N, "code": C} or {"seat": N, "request": {click}}
    POST /api/bot                {"seat": N | null}: the bots play their turn
    POST /api/new                {"seat": N | null}: abandon the game, deal the next

A refused action is HTTP 409 with {"error": one line} and changes nothing. A
request that does not come from the page's own address (another site in the
browser, a DNS-rebinding host) is refused; so is a POST that is not JSON.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import threading
import traceback
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from sim.errors import SimError
from sim.report.board import board_script
from sim.table.session import Refused, TableSession

HOST = "127.0.0.1"
STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 64 * 1024


def page_html(title: str) -> bytes:
    """The table page, scripts inlined (nothing else is ever fetched but the API)."""
    html = (STATIC / "table.html").read_text(encoding="utf-8")
    safe = title.replace("&", "&amp;").replace("<", "&lt;")
    html = html.replace("{{TITLE}}", safe).replace("{{BOARD_JS}}", board_script())
    return html.replace("{{TABLE_JS}}", (STATIC / "table.js").read_text(encoding="utf-8")).encode()


class TableServer(ThreadingHTTPServer):
    """The HTTP server of one table session."""

    daemon_threads = True
    request_queue_size = 128  # socketserver's 5 dropped connections under a burst of clients
    allow_reuse_address = False  # a port another server holds is "in use", not shared

    def __init__(self, port: int, session_factory) -> None:
        try:
            super().__init__((HOST, port), TableHandler)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise SimError(
                    f"port {port} on {HOST} is in use; choose another with --port"
                ) from None
            raise SimError(f"cannot listen on {HOST}:{port}: {exc.strerror}") from None
        self.port = self.server_address[1]
        self.session: TableSession = session_factory()
        self.page = page_html(self.session.study.name)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/"

    def handle_error(self, request, client_address) -> None:
        """A client that went away before its answer (a closed tab, a refused request
        whose sender hung up) is nobody's error: nothing is printed. Anything else is
        socketserver's traceback, as a bug should be."""
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipe, ConnectionReset
            return
        super().handle_error(request, client_address)


class TableHandler(BaseHTTPRequestHandler):
    """One request: the page or one JSON call; every failure is a JSON error line."""

    server: TableServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:  # noqa: A002 (the base class's name)
        pass  # the terminal shows the address and errors, not every request

    def _send(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        # never inside another site's frame (a page of another site could cover it)
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Content-Security-Policy", "frame-ancestors 'none'")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: dict) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _error(self, status: int, line: str) -> None:
        self._json(status, {"error": line})

    def _ours(self) -> bool:
        """The request names this server (Host) and, if it says where it comes from
        (Origin), comes from this server's own page."""
        names = {f"{HOST}:{self.server.port}", f"localhost:{self.server.port}"}
        if self.headers.get("Host") not in names:
            self._error(HTTPStatus.FORBIDDEN, "this table answers only at its own address")
            return False
        origin = self.headers.get("Origin")
        if origin is not None and origin not in {f"http://{n}" for n in names}:
            self._error(HTTPStatus.FORBIDDEN, "this table answers only its own page")
            return False
        return True

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if not self._ours():
            return
        url = urlsplit(self.path)
        if url.path in ("/", "/index.html"):
            self._send(HTTPStatus.OK, self.server.page, "text/html; charset=utf-8")
        elif url.path == "/api/state":
            query = parse_qs(url.query)
            seat = query.get("seat", [""])[0]
            if seat == "":
                self._guarded(lambda: self.server.session.state(None))
            # ASCII digits, a few: not "¹" (isdigit, but not int) nor 5,000 of them
            elif not (seat.isascii() and seat.isdigit() and len(seat) <= 3):
                self._error(HTTPStatus.BAD_REQUEST, "seat must be a seat number")
            else:
                self._guarded(lambda: self.server.session.state(int(seat)))
        elif url.path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such page: {url.path}")

    def do_POST(self) -> None:  # noqa: N802
        if not self._ours():
            return
        body = self._body()
        if body is None:
            return
        session = self.server.session
        seat = body.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            self._error(HTTPStatus.BAD_REQUEST, "seat must be a seat number or null")
            return
        path = urlsplit(self.path).path
        if path == "/api/action":
            code, request = body.get("code"), body.get("request")
            self._guarded(lambda: _then(session.act(seat, code, request), session, seat))
        elif path == "/api/bot":
            self._guarded(
                lambda: {"played": session.bot_step(), "state": session.state_after(seat)}
            )
        elif path == "/api/new":
            self._guarded(lambda: _then(session.new_game(), session, seat))
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such call: {path}")

    def _body(self) -> dict | None:
        if self.headers.get_content_type() != "application/json":
            self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send JSON (application/json)")
            return None
        try:
            size = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            size = -1
        if not 0 <= size <= MAX_BODY:
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"at most {MAX_BODY} bytes a request")
            self.close_connection = True
            return None
        try:
            body = json.loads(self.rfile.read(size) or b"{}")
        except (ValueError, RecursionError):  # RecursionError: nested thousands deep
            self._error(HTTPStatus.BAD_REQUEST, "the request body is not JSON")
            return None
        if not isinstance(body, dict):
            self._error(HTTPStatus.BAD_REQUEST, "the request body must be a JSON object")
            return None
        return body

    def _guarded(self, work) -> None:
        """Answer with work()'s JSON; a refused action is 409 with its one line, a bug 500."""
        try:
            data = work()
        except Refused as exc:
            self._error(HTTPStatus.CONFLICT, " ".join(str(exc).split()))
            return
        except SimError as exc:
            self._error(HTTPStatus.BAD_REQUEST, " ".join(str(exc).split()))
            return
        except Exception as exc:  # a bug: say so, keep serving
            traceback.print_exc()
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"internal error: {type(exc).__name__}")
            return
        self._json(HTTPStatus.OK, data)


def _then(_done, session: TableSession, seat: int | None) -> dict:
    """The state after an action (its return value ignored), as a POST answers it."""
    return {"state": session.state_after(seat)}


def open_table(
    study,
    humans: list[int],
    *,
    port: int,
    seed: int | None,
    first_game: int,
    log_dir: Path,
    pause_s: float,
    names: list[str] | None = None,
) -> TableServer:
    """Check everything a user gives, bind the port, deal the first game: the server, ready.

    Every mistake is one SimError line before any game is dealt."""
    players = study.game.players
    bad = [p for p in humans if not 0 <= p < players]
    if bad:
        raise SimError(f"--seat {bad[0]}: seats are numbered 0 to {players - 1} in this game")
    if len(set(humans)) != len(humans):
        raise SimError("--seat: each seat once")
    names = list(names or [])
    if len(names) > len(humans):
        seats = "1 seat" if len(humans) == 1 else f"{len(humans)} seats"
        raise SimError(f"--name: {len(names)} names for {seats} of people (--seat)")
    for name in names:
        if not name.strip() or len(name) > 60 or not name.isprintable():
            raise SimError(f"--name {name!r}: a name is 1 to 60 printable characters")
    if not 0 <= port <= 65535:
        raise SimError(f"--port must be from 0 (any free port) to 65535, got {port}")
    if not 0 <= pause_s <= 60:
        raise SimError(f"--pause must be from 0 to 60 seconds, got {pause_s:g}")
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "little")  # a fresh deal; the log keeps it
    elif not 0 <= seed < 2**63:
        raise SimError(f"--seed must be from 0 to 2**63 - 1, got {seed}")
    if not 0 <= first_game < 100_000_000:
        raise SimError(f"--game must be a game index from 0 to 99,999,999, got {first_game}")
    if study.replays:
        raise SimError("replays: a study of replayed deals is played by sim luck, not at a table")
    if log_dir.exists() and not log_dir.is_dir():
        raise SimError(f"{log_dir}: is a file, not a folder for the game logs")
    log_dir.mkdir(parents=True, exist_ok=True)
    if not os.access(log_dir, os.W_OK):
        raise SimError(f"{log_dir}: cannot write the game logs there")

    def session() -> TableSession:
        people = dict(zip(humans, (n.strip() for n in names), strict=False))
        return TableSession(study, set(humans), seed, first_game, log_dir, pause_s, people)

    return TableServer(port, session)


def serve(server: TableServer, open_browser: bool = False) -> None:
    """Serve until Ctrl-C (or SIGTERM); the game in progress is logged as abandoned."""
    if open_browser:
        threading.Timer(0.3, webbrowser.open, (server.url,)).start()
    try:
        server.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        server.session.close("the server stopped")
        print("sim table: stopped", file=sys.stderr)
