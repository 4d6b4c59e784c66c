"""`sim table`'s server over HTTP: its address, its refusals, and the command's errors."""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import time

import pytest
from table_helpers import BASE, ROOT

from sim.cli import main


def _call(served, method: str, path: str, body=None, headers=None) -> tuple[int, dict | str]:
    conn = http.client.HTTPConnection("127.0.0.1", served.server.port, timeout=10)
    hdrs = {"Host": f"127.0.0.1:{served.server.port}"}
    payload = None
    if body is not None:
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    hdrs.update(headers or {})
    conn.request(method, path, body=payload, headers=hdrs)
    resp = conn.getresponse()
    data = resp.read().decode()
    conn.close()
    kind = resp.getheader("Content-Type", "")
    return resp.status, json.loads(data) if kind.startswith("application/json") else data


def test_the_server_listens_on_localhost_only(serve):
    served = serve()
    assert served.server.server_address[0] == "127.0.0.1"
    assert served.url.startswith("http://127.0.0.1:")


def test_the_page_is_self_contained(serve):
    status, page = _call(serve(), "GET", "/")
    assert status == 200 and "<svg" not in page  # drawn by the page's own script
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "BOARD.draw" in page and "fetch(" in page


def test_an_illegal_action_over_http_is_refused_in_one_line_and_changes_nothing(serve):
    served = serve()
    _, before = _call(served, "GET", "/api/state?seat=0")
    log = served.session.log_path.read_bytes()
    for body in (
        {"seat": 0, "code": 77},
        {"seat": 1, "code": before["legal"][0]["code"]},
        {"seat": 0, "request": {"kind": "place", "card": "box:N", "at": [9, 9]}},
        {"seat": "0", "code": 1},
    ):
        status, answer = _call(served, "POST", "/api/action", body)
        assert status in (400, 409) and set(answer) == {"error"}
        assert "\n" not in answer["error"] and answer["error"]
    _, after = _call(served, "GET", "/api/state?seat=0")
    assert after == before and served.session.log_path.read_bytes() == log


def test_a_legal_action_and_the_bots_turn(serve):
    served = serve()
    _, state = _call(served, "GET", "/api/state?seat=0")
    box = next(a for a in state["legal"] if a["kind"] == "box")
    status, answer = _call(served, "POST", "/api/action", {"seat": 0, "code": box["code"]})
    assert status == 200 and answer["state"]["step"] == 1
    while answer["state"]["mover_human"]:
        code = answer["state"]["legal"][0]["code"]
        _, answer = _call(served, "POST", "/api/action", {"seat": 0, "code": code})
    status, answer = _call(served, "POST", "/api/bot", {"seat": 0})
    assert status == 200 and answer["played"] >= 1


@pytest.mark.parametrize(
    ("method", "path", "body", "headers", "status"),
    [
        ("GET", "/api/state", None, {"Host": "evil.example:80"}, 403),
        ("POST", "/api/new", {}, {"Origin": "http://evil.example"}, 403),
        ("POST", "/api/action", b"{not json", None, 400),
        ("POST", "/api/action", b"[1, 2]", None, 400),
        ("POST", "/api/action", {"seat": 0}, {"Content-Type": "text/plain"}, 415),
        ("GET", "/api/state?seat=x", None, None, 400),
        ("GET", "/api/state?seat=%C2%B9", None, None, 400),  # "¹": isdigit, not int
        ("GET", "/api/state?seat=" + "7" * 5000, None, None, 400),
        ("POST", "/api/action", b"[" * 30000 + b"]" * 30000, None, 400),  # RecursionError
        ("POST", "/api/action", {"seat": int("9" * 400), "code": 1}, None, 409),
        ("GET", "/api/state?seat=9", None, None, 409),
        ("GET", "/api/state?seat=1", None, None, 409),  # the bot's hand
        ("GET", "/etc/passwd", None, None, 404),
    ],
)
def test_requests_that_are_not_the_pages_are_refused(serve, method, path, body, headers, status):
    served = serve()
    got, answer = _call(served, method, path, body, headers)
    assert got == status and set(answer) == {"error"}


def test_no_answer_during_a_game_holds_the_seed_and_the_page_shows_it_once_over(serve):
    """The deal follows from the seed and the game index: no page, state or answer carries
    it while the game is on (the terminal and the log do); once the game is over it does.
    Every answer is read as text, so a seed anywhere (a field, the log's name) is found."""
    seed = 987_654_321
    served = serve(seed=seed, humans=(0,))
    bodies = []

    def call(method, path, body=None):
        status, answer = _call(served, method, path, body)
        bodies.append(json.dumps(answer) if isinstance(answer, dict) else answer)
        return status, answer

    call("GET", "/")
    _, state = call("GET", "/api/state?seat=0")
    call("GET", "/api/state")
    while not state["over"]:
        if state["mover_human"]:
            _, answer = call("POST", "/api/action", {"seat": 0, "code": state["legal"][0]["code"]})
        else:
            _, answer = call("POST", "/api/bot", {"seat": 0})
        state = answer["state"]
        if not state["over"]:
            bodies.append(json.dumps(state))
            assert all(str(seed) not in b for b in bodies), "the seed was sent during the game"
    assert state["seed"] == seed  # the game is over: the page may say how it was dealt
    assert str(seed) in served.session.log_path.read_text()  # the log keeps it


def test_eighty_clients_at_once_are_all_answered(serve):
    """800 requests from 80 clients at once: every one answered within the client's 10 s
    (a listen backlog of 5 dropped connections that then waited to be tried again)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    served = serve()
    together = threading.Barrier(80)  # every client connects at the same moment

    def ten(_):
        together.wait()
        return [_call(served, "GET", "/api/state")[0] for _ in range(10)]

    with ThreadPoolExecutor(80) as pool:
        statuses = [status for batch in pool.map(ten, range(80)) for status in batch]
    assert statuses == [200] * 800


def test_a_full_disk_is_one_line_naming_the_log(serve, monkeypatch):
    """The log cannot be written (ENOSPC): the action is one error line naming the log's
    path, and the server keeps serving."""
    import errno

    served = serve()
    _, state = _call(served, "GET", "/api/state?seat=0")

    def full(_records):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(
        served.session.writer, "_file", type("F", (), {"write": staticmethod(full)})()
    )
    status, answer = _call(
        served, "POST", "/api/action", {"seat": 0, "code": state["legal"][0]["code"]}
    )
    assert status == 400 and str(served.session.log_path) in answer["error"], answer
    assert "No space left on device" in answer["error"]
    assert _call(served, "GET", "/api/state")[0] == 200


def test_the_page_cannot_be_framed_by_another_site(serve):
    conn = http.client.HTTPConnection("127.0.0.1", serve().server.port, timeout=10)
    conn.request("GET", "/", headers={"Host": f"127.0.0.1:{conn.port}"})
    resp = conn.getresponse()
    resp.read()
    assert resp.getheader("X-Frame-Options") == "DENY"
    assert "frame-ancestors 'none'" in resp.getheader("Content-Security-Policy")


def test_the_server_survives_a_dropped_connection(serve):
    served = serve()
    raw = socket.create_connection(("127.0.0.1", served.server.port))
    raw.sendall(b"POST /api/action HTTP/1.1\r\nHost: x\r\nContent-Length: 99\r\n\r\n{")
    raw.close()
    status, state = _call(served, "GET", "/api/state?seat=0")
    assert status == 200 and state["step"] == 0


def _one_error(capsys, *args) -> str:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


def test_a_port_in_use_is_one_error_before_any_game(serve, capsys, tmp_path):
    served = serve()
    logs = tmp_path / "other-logs"
    port = served.server.port
    line = _one_error(capsys, "table", BASE, "--port", port, "--logs", logs)
    assert f"port {port}" in line and "in use" in line
    assert not any(logs.glob("*.jsonl"))  # no game was dealt


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--seat", "4"], "--seat 4: seats are numbered 0 to 3"),
        (["--seat", "1", "1"], "each seat once"),
        (["--port", "70000"], "--port must be"),
        (["--pause", "-1"], "--pause must be"),
        (["--seed", "-3"], "--seed must be"),
        (["--set", "players=9"], "players"),
        (["--seat", "0", "--name", "olena", "taras"], "--name: 2 names for 1 seat of people"),
        (["--name", " "], "a name is 1 to 60 printable characters"),
    ],
)
def test_the_commands_mistakes_are_one_line(capsys, tmp_path, args, says):
    line = _one_error(capsys, "table", BASE, "--logs", tmp_path / "logs", *args)
    assert says in line
    assert not (tmp_path / "logs").exists() or not any((tmp_path / "logs").iterdir())


def test_a_log_folder_that_is_a_file_is_one_error(capsys, tmp_path):
    logs = tmp_path / "afile"
    logs.write_text("mine")
    assert "is a file" in _one_error(capsys, "table", BASE, "--logs", logs, "--port", "0")
    assert logs.read_text() == "mine"


def test_sim_table_prints_its_address_and_stops_on_ctrl_c(tmp_path):
    """The command as a user runs it: one line with the address, a page there, and on
    SIGINT a clean stop whose log says the game was abandoned."""
    logs = tmp_path / "logs"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sim.cli", "table", str(BASE), "--port", "0", "--logs", str(logs)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert url, line
        conn = http.client.HTTPConnection("127.0.0.1", int(url.group(1)), timeout=10)
        conn.request("GET", "/api/state?seat=0")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        proc.send_signal(2)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0, proc.stderr.read()
    time.sleep(0.1)
    (log,) = logs.glob("*.jsonl")
    assert json.loads(log.read_text().splitlines()[-1])["event"] == "abandoned"


def test_a_client_that_hangs_up_is_not_an_error_but_a_bug_is(serve, capsys):
    """A closed tab or a sender that hung up before its answer (BrokenPipe, a reset) prints
    nothing; any other failure in a handler still prints socketserver's traceback."""
    served = serve()
    for gone in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset")):
        try:
            raise gone
        except ConnectionError:
            served.server.handle_error(None, ("127.0.0.1", 1))
    assert capsys.readouterr().err == ""
    try:
        raise ValueError("a bug in a handler")
    except ValueError:
        served.server.handle_error(None, ("127.0.0.1", 1))
    assert "a bug in a handler" in capsys.readouterr().err
