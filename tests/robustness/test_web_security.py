"""The web server against an attacker on 127.0.0.1 (docs/security.md): uploads are closed worlds, requests
come from the server's own pages only, a seat learns nothing it may not see, the data folder is private and
never written through a link, bodies and rates are bounded, and no request gets an internal error's text.
Each test is a finding of the web-server issue or of the second hardening round."""

from __future__ import annotations

import json
import os
import socket
import stat
import threading
import time
from pathlib import Path

import pytest

try:
    import starlette  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as e:
    pytest.fail(f"the web extra is not installed ({e.name}): pip install -e '.[web]'", pytrace=False)

from web_helpers import ROOT, Server, new_game  # noqa: E402 - after the check

SEATS = [{"name": "Ann", "agent": "human"}, {"name": "Bob", "agent": "greedy"}]
SECRET_LINE = "PRETTY_NAME=top-secret-value"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("web-security") / "store"


@pytest.fixture(scope="module")
def server(data: Path):
    s = Server(data)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def secret_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("victim") / "os-release"
    p.write_text(SECRET_LINE + "\n")
    return p


def upload(server: Server, text: str, name: str = "mine.rules", **more) -> tuple[int, dict]:
    return server.call("/api/games", {"rules_file": {"name": name, "text": text}, "board": "scotland", "seats": SEATS,
                                      **more})


# ----- uploads are closed worlds ----------------------------------------------------------------------
def test_an_uploaded_ruleset_cannot_extend_a_file_of_the_machine(server: Server, secret_file: Path) -> None:
    """Finding: `extends "/usr/lib/os-release"` answered with the file's first line."""
    depth = "../" * 12
    for target in (str(secret_file), f"{depth}{str(secret_file).lstrip('/')}", "../../../../../../../etc/hostname",
                   "~/.bashrc", "/dev/zero", "../games.sqlite3"):
        got, answer = upload(server, f'ruleset mine extends "{target}"\n')
        assert got == 400, (target, answer)
        assert "outside this ruleset's folder" in answer["error"], (target, answer)
        assert "top-secret" not in answer["error"] and "PRETTY_NAME" not in answer["error"]


def test_an_uploaded_ruleset_cannot_extend_through_a_link(server: Server, data: Path, secret_file: Path) -> None:
    """A link planted in the store's worlds is not followed: the world is laid out anew from the store."""
    got, made = upload(server, 'ruleset mine extends "scotland"\n')
    assert got == 201, made
    worlds = [p for p in (data / "worlds").iterdir() if not p.name.startswith(".")]
    for w in worlds:
        link = w / "rules" / "evil.rules"
        if not link.exists():
            link.symlink_to(secret_file)
    got, answer = upload(server, 'ruleset mine extends "evil.rules"\n')
    assert got == 400 and "top-secret" not in answer["error"], answer
    assert "not found" in answer["error"] or "outside" in answer["error"], answer


def test_uploads_extend_bundled_games_by_name_and_files_sent_with_them(server: Server) -> None:
    base = 'ruleset base extends "scotland"\n'
    child = 'ruleset child extends "base.rules"\n'
    got, made = server.call("/api/games", {"rules_file": {"name": "child.rules", "text": child},
                                           "rules_files": [{"name": "base.rules", "text": base}], "seats": SEATS})
    assert got == 201, made
    got, made = upload(server, 'ruleset mine extends "scotland.rules"\n')
    assert got == 201, made
    got, answer = upload(server, 'ruleset mine extends "missing.rules"\n')
    assert got == 400 and "not found (looked beside it)" in answer["error"], answer


def test_an_upload_may_not_take_a_bundled_ruleset_s_name(server: Server) -> None:
    got, answer = upload(server, 'ruleset scotland extends "scotland"\n', name="scotland.rules")
    assert got == 400 and "bundled ruleset" in answer["error"]
    got, answer = upload(server, 'ruleset a extends "scotland"\n', name="a.rules",
                         rules_files=[{"name": "a.rules", "text": "ruleset a\n"}])
    assert got == 400 and "two uploaded files" in answer["error"]


def test_an_uploaded_record_names_bundled_games_only(server: Server, secret_file: Path) -> None:
    for rules, board in ((str(secret_file), "scotland"), ("scotland", str(secret_file)),
                         ("../../etc/hostname.rules", "scotland"), ("scotland", "x/../../y.json")):
        record = {"rules": rules, "board": board, "players": ["A", "B"], "moves": []}
        got, answer = server.call("/api/study", {"source": {"record": record}})
        assert got == 400 and "only bundled games" in answer["error"], answer
        got, answer = server.call("/api/games", {"from": {"record": record}, "seats": SEATS})
        assert got == 400 and "only bundled games" in answer["error"], answer


def test_no_message_names_the_server_s_folders(server: Server, data: Path) -> None:
    got, answer = upload(server, "ruleset mine\nplace nothing\n")
    assert got == 400 and "mine.rules:" in answer["error"], answer
    text = json.dumps(answer)
    assert str(data) not in text and str(data.resolve()) not in text and "/worlds/" not in text
    got, answer = upload(server, 'ruleset mine extends "nope"\n')
    assert str(data) not in json.dumps(answer) and "looked beside it" in answer["error"], answer


def test_a_refused_create_keeps_none_of_its_uploads(tmp_path: Path) -> None:
    s = Server(tmp_path / "store")
    try:
        for i in range(3):
            got, _ = upload(s, f"ruleset r{i}\nthis is not a rule\n", name=f"r{i}.rules")
            assert got == 400
        got, _ = s.call("/api/games", {"rules": "scotland", "board_file": {"name": "b.json", "text": "[1]"},
                                       "seats": SEATS})
        assert got == 400
        leftovers = [p.name for p in (tmp_path / "store" / "worlds").iterdir()]
        assert leftovers == [], leftovers
    finally:
        s.stop()


# ----- requests from the server's own pages only -----------------------------------------------------------
def test_a_request_for_another_host_name_is_refused(server: Server) -> None:
    """DNS rebinding: a page of evil.example re-points its name at 127.0.0.1."""
    for path in ("/", "/api/catalog", "/static/app.js"):
        got, answer = server.call(path, headers={"Host": "evil.example"})
        assert got == 421, (path, answer)
    got, _ = server.call("/api/games", {"seats": SEATS}, headers={"Host": "evil.example:80"})
    assert got == 421
    port = server.url.rsplit(":", 1)[1]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}"):
        assert server.call("/api/catalog", headers={"Host": host})[0] == 200


def test_a_state_change_from_another_site_is_refused(server: Server) -> None:
    gid, (ann, _) = new_game(server, ["human", "greedy"])
    v = server.call(f"/api/games/{gid}?t={ann}")[1]
    tile = v["players"][0]["hand"][0]
    move = {"t": ann, "tile": tile, "hex": v["legal"][tile][0]["hex"]}
    cases = [
        ("another site's origin", {"Origin": "http://evil.example"}, 403),
        ("a null origin", {"Origin": "null"}, 403),
        ("no origin, no fetch metadata", {"Origin": None}, 403),
        ("no origin, cross-site fetch", {"Origin": None, "Sec-Fetch-Site": "cross-site"}, 403),
        ("text/plain needs no preflight", {"Content-Type": "text/plain"}, 415),
        ("a form post", {"Content-Type": "application/x-www-form-urlencoded"}, 415),
    ]
    for what, headers, status in cases:
        for path, body in ((f"/api/games/{gid}/move", move), (f"/api/games/{gid}/undo", {"t": ann}),
                           ("/api/games", {"rules": "scotland", "seats": SEATS}),
                           ("/api/study", {"source": {"name": "scotland-2p"}})):
            got, answer = server.call(path, body, headers=headers)
            assert got == status, (what, path, got, answer)
    assert server.call(f"/api/games/{gid}?t={ann}")[1]["moves"] == 0
    # the page's own requests go through: same origin with fetch metadata, or the origin itself
    got, _ = server.call("/api/study", {"source": {"name": "scotland-2p"}},
                         headers={"Origin": None, "Sec-Fetch-Site": "same-origin"})
    assert got == 200


def test_requests_that_read_files_need_the_page_s_secret(server: Server) -> None:
    for path, body in (("/api/study", {"source": {"name": "scotland-2p"}}),
                       ("/api/games", {"rules": "scotland", "seats": SEATS})):
        for token in (None, "forged", "é"):
            got, answer = server.call(path, body, headers={"X-Rebirth-Page": token})
            assert got == 403 and "page" in answer["error"], (path, token, answer)


def test_records_are_read_by_path_only_with_local_files(server: Server, tmp_path: Path) -> None:
    rec = tmp_path / "g.json"
    rec.write_text((ROOT / "examples" / "scotland-2p.json").read_text())
    got, answer = server.call("/api/study", {"source": {"path": str(rec)}})
    assert got == 403 and "--local-files" in answer["error"]
    assert server.call("/api/catalog")[1]["local_files"] is False
    s = Server(tmp_path / "store", extra=("--local-files",))
    try:
        assert s.call("/api/catalog")[1]["local_files"] is True
        assert s.call("/api/study", {"source": {"path": str(rec)}})[0] == 200
        got, _ = s.call("/api/study", {"source": {"path": str(rec)}}, headers={"X-Rebirth-Page": None})
        assert got == 403
    finally:
        s.stop()


def test_local_files_is_refused_beyond_loopback(run_cli) -> None:
    code, _, err = run_cli("serve", "--host", "0.0.0.0", "--port", "0", "--local-files")
    assert code == 1 and "only for a server on 127.0.0.1" in err


# ----- seats and secrets -------------------------------------------------------------------------------------
def test_nobody_gets_an_agent_s_link(server: Server) -> None:
    got, made = server.call("/api/games", {"rules": "scotland", "seats": SEATS})
    assert got == 201
    assert [link["seat"] for link in made["links"]] == [0, None]


def test_a_seat_learns_nothing_of_another_s_hand(server: Server) -> None:
    gid, (ann, bob, watch) = new_game(server, ["human", "human"], seed=11)
    a = server.call(f"/api/games/{gid}?t={ann}")[1]
    hidden = {"hand", "set_aside", "missions"}
    b_view = server.call(f"/api/games/{gid}?t={bob}")[1]
    assert not hidden & set(b_view["players"][0]) and "legal" not in b_view
    for token in (bob, watch, "", "x" * 22, "%C3%A9", "%00"):
        got, answer = server.call(f"/api/games/{gid}/record?t={token}")
        assert got in (403, 404) and "moves" not in answer
    # the other seat's secret does not move for it, nor does a token in another game
    tile = a["players"][0]["hand"][0]
    move = {"tile": tile, "hex": a["legal"][tile][0]["hex"]}
    assert server.call(f"/api/games/{gid}/move", {"t": bob, **move})[0] == 409
    gid2, (ann2, _) = new_game(server, ["human", "greedy"])
    assert server.call(f"/api/games/{gid2}?t={ann}")[0] == 403
    assert server.call(f"/api/games/{gid2}/move", {"t": ann, **move})[0] == 403
    # a bundled game's files are not served as uploads
    assert server.call(f"/api/games/{gid}/files/rules?t={ann}")[0] == 404


# ----- the data folder -----------------------------------------------------------------------------------------
def test_the_store_is_private(tmp_path: Path) -> None:
    """Finding: games.sqlite3 was 0644 in a 0755 folder, with every seat's secret in it."""
    folder = tmp_path / "store"
    s = Server(folder)
    try:
        assert upload(s, 'ruleset mine extends "scotland"\n')[0] == 201
    finally:
        s.stop()
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    made = [p for p in folder.rglob("*")]
    assert any(p.name == "mine.rules" for p in made)
    for p in made:
        assert stat.S_IMODE(os.lstat(p).st_mode) == (0o700 if p.is_dir() else 0o600), p


def test_a_store_of_another_user_or_a_link_is_refused(tmp_path: Path, run_cli) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    code, _, err = run_cli("serve", "--port", "0", "--data", str(link))
    assert code == 1 and "a link" in err
    if os.geteuid() == 0:
        other = tmp_path / "other"
        other.mkdir(mode=0o777)
        os.chown(other, 65534, 65534)
        code, _, err = run_cli("serve", "--port", "0", "--data", str(other))
        assert code == 1 and "another user" in err


def test_an_old_store_is_made_private(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    s = Server(folder)
    s.stop()
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(folder / "games.sqlite3").st_mode) == 0o600


def test_an_upload_is_never_written_through_a_planted_link(tmp_path: Path) -> None:
    """Finding: DATA/files/<hash>/a.rules -> ~/.bashrc, then an upload of a.rules wrote into ~/.bashrc."""
    victim = tmp_path / "bashrc"
    victim.write_text("# mine\n")
    folder = tmp_path / "store"
    s = Server(folder)
    try:
        text = 'ruleset a extends "scotland"\n'
        # plant links where the upload will be laid out: in the world folder named as the store names it
        from rebirth_dsl.web.store import world_digest

        files = {f"rules/{p.relative_to(ROOT / 'rules').as_posix()}": p.read_text()
                 for p in (ROOT / "rules").rglob("*.rules")}
        files["rules/a.rules"] = text
        files["boards/scotland.json"] = (ROOT / "boards" / "scotland.json").read_text()
        w = folder / "worlds" / world_digest(files)
        (w / "rules").mkdir(parents=True)
        (w / "rules" / "a.rules").symlink_to(victim)
        (w / "rules" / "b.rules").symlink_to(tmp_path / "dangling")
        got, made = upload(s, text, name="a.rules")
        assert got == 201, made
        assert victim.read_text() == "# mine\n"
        assert not (tmp_path / "dangling").exists()
    finally:
        s.stop()


def test_a_game_s_file_is_served_from_the_store_not_the_disk(server: Server, data: Path, secret_file: Path) -> None:
    """Finding: /files/{key} re-read a path on every call; a file swapped for a link to a secret was served."""
    text = 'ruleset served extends "scotland"\n# my variant\n'
    got, made = upload(server, text, name="served.rules")
    assert got == 201
    gid, ann = made["id"], made["links"][0]["token"]
    for p in (data / "worlds").rglob("served.rules"):
        p.unlink()
        p.symlink_to(secret_file)
    got, answer = server.call(f"/api/games/{gid}/files/rules?t={ann}")
    assert got == 200 and answer == text


def test_a_stored_game_keeps_the_rules_it_began_with(tmp_path: Path) -> None:
    """Finding: after a restart a stored game followed the edited file. A world edited on disk is laid out
    again from the store."""
    folder = tmp_path / "store"
    text = 'ruleset pinned extends "scotland"\n'
    s = Server(folder)
    try:
        got, made = upload(s, text, name="pinned.rules")
        assert got == 201
        gid, ann = made["id"], made["links"][0]["token"]
        before = s.call(f"/api/games/{gid}?t={ann}")[1]
    finally:
        s.stop()
    for p in (folder / "worlds").rglob("pinned.rules"):
        os.chmod(p, 0o600)
        p.write_text('ruleset pinned extends "scotland"\nplayers 2 to 2   # S-U1\n')
    s = Server(folder)
    try:
        after = s.call(f"/api/games/{gid}?t={ann}")[1]
        assert after["players"][0]["hand"] == before["players"][0]["hand"]
        assert [p.read_text() for p in (folder / "worlds").rglob("pinned.rules")] == [text]
    finally:
        s.stop()


# ----- no internal error reaches a browser ---------------------------------------------------------------------
def test_hostile_requests_get_a_clear_refusal(server: Server) -> None:
    """Finding 8 of the second round: each of these was an HTTP 500 with the exception's text."""
    gid, (ann, _) = new_game(server, ["human", "greedy"])
    cases = [
        (f"/api/games/{gid}?t=%C3%A9", None, None),
        (f"/api/games/{gid}?t=%FF%FE", None, None),
        (f"/api/games/{gid}?t={ann}&after=%C2%B2", None, None),
        (f"/api/games/{gid}?t={ann}&after={'9' * 5000}", None, None),
        (f"/api/games/{gid}?t={ann}&after=1&wait=nan", None, None),
        (f"/api/games/{gid}/move", None, b"[" * 100_000),
        (f"/api/games/{gid}/move", None, b'{"t": ' + b"1" * 5000 + b"}"),
        ("/api/games", {"rules": "scotland", "seed": "Infinity", "seats": SEATS}, None),
        ("/api/games", None, b'{"rules": "scotland", "seed": Infinity, "seats": [{"agent": "human"}]}'),
        ("/api/games", {"rules": "scotland", "seed": 10**30, "seats": SEATS}, None),
        ("/api/games", {"rules": ["scotland"], "seats": SEATS}, None),
        ("/api/games", {"rules": "scotland", "seats": [{"agent": ["human"]}]}, None),
        ("/api/games", {"rules_file": {"name": "ünïcode.rules", "text": "x"}, "seats": SEATS}, None),
        ("/api/games", {"from": {"name": "scotland-2p"}, "at": True, "seats": SEATS}, None),
        (f"/api/games/{gid}/move", {"t": ["x"], "tile": "food", "hex": [0, 0]}, None),
        (f"/api/games/{gid}/move", {"t": {"a": 1}}, None),
        ("/api/study", {"source": {"name": ["x"]}}, None),
        ("/api/study", {"source": {"name": "scotland-2p"}, "step": 1.5}, None),
        ("/api/games/" + "a" * 5000, None, None),
    ]
    for path, body, raw in cases:
        got, answer = server.call(path, body, raw=raw)
        assert 400 <= got < 500, (path, body, raw and raw[:40], got, answer)
        assert isinstance(answer, dict) and "Error" not in answer.get("error", "") and "Traceback" not in str(answer)


def test_a_download_name_outside_latin_1_is_sent(server: Server) -> None:
    text = 'ruleset dl extends "scotland"\n'
    got, made = upload(server, text, name="dl.rules")
    gid, ann = made["id"], made["links"][0]["token"]
    got, answer = server.call(f"/api/games/{gid}/files/rules?t={ann}")
    assert got == 200


# ----- limits that hold under abuse ----------------------------------------------------------------------------
def test_a_body_over_the_limit_is_refused(server: Server) -> None:
    """Refused from its Content-Length, before it is read."""
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(f"POST /api/games HTTP/1.1\r\nHost: {host}:{port}\r\nOrigin: {server.url}\r\n"
                  "Content-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{".encode())
        head = s.recv(200).decode()
    assert head.startswith("HTTP/1.1 413"), head


def test_long_polls_per_client_are_bounded(server: Server) -> None:
    gid, (ann, _bob, _w) = new_game(server, ["human", "human"])
    v = server.call(f"/api/games/{gid}?t={ann}")[1]["version"]
    results: list[int] = []

    def poll() -> None:
        results.append(server.call(f"/api/games/{gid}?t={ann}&after={v}&wait=3")[0])

    threads = [threading.Thread(target=poll) for _ in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(429) >= 8 and results.count(200) >= 1, sorted(results)


def test_moves_per_second_per_seat_are_bounded(server: Server) -> None:
    gid, (ann, _bob, _w) = new_game(server, ["human", "human"])
    statuses = [server.call(f"/api/games/{gid}/move", {"t": ann, "tile": "nothing", "hex": [0, 0]})[0]
                for _ in range(80)]
    assert 429 in statuses and statuses[0] == 409, statuses


def test_a_half_sent_request_is_cut_off(server: Server) -> None:
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    socks = []
    for _ in range(20):
        s = socket.create_connection((host, int(port)), timeout=30)
        s.sendall(b"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
        socks.append(s)
    start = time.monotonic()
    socks[0].settimeout(30)
    assert socks[0].recv(100) == b""  # closed by the server, not answered
    assert time.monotonic() - start < 25
    for s in socks:
        s.close()
    assert server.call("/api/catalog")[0] == 200


def test_the_same_move_sent_many_times_at_once_is_made_once(server: Server) -> None:
    gid, (ann, bob, _) = new_game(server, ["human", "human"], seed=9)
    v = server.call(f"/api/games/{gid}?t={ann}")[1]
    tile = v["players"][0]["hand"][0]
    move = {"t": ann, "tile": tile, "hex": v["legal"][tile][0]["hex"]}
    results: list[int] = []
    barrier = threading.Barrier(12)

    def go() -> None:
        barrier.wait()
        results.append(server.call(f"/api/games/{gid}/move", move)[0])

    threads = [threading.Thread(target=go) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(200) == 1 and set(results) <= {200, 409}, results
    after = server.call(f"/api/games/{gid}?t={bob}")[1]
    assert after["moves"] == 1 and after["turn"] == 1


def test_memory_holds_a_bounded_number_of_games_and_a_restart_replays_none_waiting_for_people(tmp_path: Path) -> None:
    """Finding 9: every game stayed in memory (3,000 games: 76 -> 166 MB) and a restart replayed them all."""
    from rebirth_dsl.web.hub import Hub

    hub = Hub(tmp_path / "store", agent_delay=0, max_live=4)
    made = [hub.create({"rules": "scotland", "seed": i, "seats": [{"agent": "human"}, {"agent": "human"}]})
            for i in range(10)]
    assert len(hub.games) <= 4
    for live, links in made:  # every game is still there, loaded again on demand
        assert hub.view(live.id, links[0]["token"])["moves"] == 0
        assert len(hub.games) <= 4
    hub.stop()
    hub.store.close()
    again = Hub(tmp_path / "store", agent_delay=0, max_live=4)
    assert again.resume_all() == 0 and len(again.games) == 0
    again.store.close()


def _whole_response(s: socket.socket) -> bytes:
    """One HTTP response read whole (headers, then Content-Length bytes of body): a response may come in
    several segments, and what is left of it must not be taken for an answer to a later request."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next((int(ln.split(b":", 1)[1]) for ln in head.split(b"\r\n")
                   if ln.lower().startswith(b"content-length:")), 0)
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def test_a_kept_alive_connection_that_trickles_its_next_request_is_cut_off(server: Server) -> None:
    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=40) as s:
        s.sendall(f"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        first = _whole_response(s)
        assert first.startswith(b"HTTP/1.1 200")
        start = time.monotonic()
        rest = b""
        for ch in b"GET /api/catalog HTTP/1.1\r\nHost: ":
            try:
                s.sendall(bytes([ch]))
            except OSError:
                break
            time.sleep(0.5)  # a byte every half second: always under the keep-alive time, never a whole request
            if time.monotonic() - start > 30:
                break
        try:
            rest = s.recv(65536)
        except OSError:
            rest = b""
        assert rest == b"" and time.monotonic() - start < 20, (rest[:80], time.monotonic() - start)


def test_a_store_of_the_older_version_is_adopted_from_its_own_texts(tmp_path: Path) -> None:
    """Games stored before worlds named their uploads by absolute path into DATA/files/<hash>/: they get a
    world from the texts the old store kept, and play on; nothing is read from that folder."""
    import sqlite3

    from rebirth_dsl.play.table import new_table
    from rebirth_dsl.records.resources import bundled

    folder = tmp_path / "store"
    folder.mkdir()
    variant = 'ruleset old extends "scotland.rules"\n'
    upload = folder / "files" / "0123456789abcdef" / "old.rules"  # where the old version wrote it: never created
    record = new_table(bundled("rules")["scotland"], bundled("boards")["scotland"], ["Ann", "Bob"],
                       ["human", "human"], 3).record()
    bundled_game = dict(record)
    uploaded_game = {**record, "rules": str(upload)}
    db = sqlite3.connect(folder / "games.sqlite3")
    db.executescript("""
        CREATE TABLE games (id TEXT PRIMARY KEY, created REAL NOT NULL, updated REAL NOT NULL, record TEXT NOT NULL,
            tokens TEXT NOT NULL, watch TEXT NOT NULL, pending TEXT NOT NULL DEFAULT '{}', version INTEGER NOT NULL);
        CREATE TABLE files (hash TEXT PRIMARY KEY, name TEXT NOT NULL, text TEXT NOT NULL);
    """)
    db.execute("INSERT INTO files VALUES (?, ?, ?)", ("0123456789abcdef", "old.rules", variant))
    for gid, rec in (("bundledgame", bundled_game), ("uploadgame", uploaded_game)):
        db.execute("INSERT INTO games VALUES (?, 1, 1, ?, ?, 'w', '{}', 3)",
                   (gid, json.dumps(rec), json.dumps([f"{gid}-a", f"{gid}-b"])))
    db.commit()
    db.close()
    s = Server(folder)
    try:
        for gid in ("bundledgame", "uploadgame"):
            got, v = s.call(f"/api/games/{gid}?t={gid}-a")
            assert got == 200, v
            assert v["version"] == 3 and v["turn"] == 0
        assert s.call("/api/games/uploadgame/files/rules?t=uploadgame-a") == (200, variant)
        assert not upload.exists()
    finally:
        s.stop()


def test_bundled_names_are_never_looked_up_in_the_working_folder(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 11: a server started in a folder holding ./scotland played that file as the bundled board."""
    from rebirth_dsl.web.hub import Hub

    work = tmp_path / "work"
    work.mkdir()
    for name in ("scotland", "scotland.json", "scotland.rules", "ireland"):
        (work / name).write_text("not what the bundled game holds\n")
    monkeypatch.chdir(work)
    hub = Hub(tmp_path / "store", agent_delay=0)
    try:
        live, _ = hub.create({"rules": "scotland", "board": "scotland", "seats": [{"agent": "human"}] * 2})
        assert live.table.game.rs.title.startswith("Rebirth")
        live, _ = hub.create({"rules": "ireland", "seats": [{"agent": "human"}] * 2})
        assert "Ireland" in live.table.game.rs.title
    finally:
        hub.store.close()


def test_a_method_no_route_takes_is_refused_in_json(server: Server) -> None:
    import http.client

    host, port = server.url.removeprefix("http://").rsplit(":", 1)
    for method, path in (("PUT", "/api/games"), ("DELETE", "/api/catalog"), ("PATCH", "/api/study")):
        c = http.client.HTTPConnection(host, int(port), timeout=30)
        c.request(method, path, headers={"Host": f"{host}:{port}", "Origin": server.url})
        r = c.getresponse()
        body = json.loads(r.read())
        assert r.status == 405 and method in body["error"] and r.getheader("Allow"), (method, body)
        c.close()


def test_answers_are_compressed_for_a_client_beyond_the_machine_only(server: Server) -> None:
    """A browser on another machine (here: named by a reverse proxy on loopback) gets views and pictures
    gzipped, made once per version; a client on this machine gets them as they are."""
    import gzip
    import urllib.request

    gid, (ann, _bob, _w) = new_game(server, ["human", "human"])
    for path in (f"/api/games/{gid}?t={ann}", f"/api/games/{gid}/board.svg?t={ann}"):
        bodies = {}
        for forwarded in (None, "203.0.113.7"):
            headers = {"Accept-Encoding": "gzip"} | ({"X-Forwarded-For": forwarded} if forwarded else {})
            with urllib.request.urlopen(urllib.request.Request(server.url + path, headers=headers), timeout=30) as r:
                raw, enc = r.read(), r.headers.get("Content-Encoding")
            assert (enc == "gzip") == (forwarded is not None), (path, forwarded, enc)
            bodies[forwarded] = gzip.decompress(raw) if enc == "gzip" else raw
        assert bodies[None] == bodies["203.0.113.7"]
