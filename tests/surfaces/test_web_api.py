"""The web app's server without a browser: bad requests are refused with a clear status and message and
change nothing; two racing moves are applied one at a time; a seat's link sees only that seat's secrets;
a placement that asks a question (I-R1) is committed before its answers are shown; take-backs."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

try:  # never skipped for want of the web extra: CI installs it (only a missing browser skips, in test_web.py)
    import starlette  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as e:
    pytest.fail(f"the web extra is not installed ({e.name}): pip install -e '.[web]'", pytrace=False)

from web_helpers import Server, new_game  # noqa: E402 - after the skips


def view(server: Server, gid: str, token: str) -> dict:
    status, v = server.call(f"/api/games/{gid}?t={token}")
    assert status == 200, v
    return v


def wait_for(server: Server, gid: str, token: str, pred, timeout: float = 20.0) -> dict:
    end = time.monotonic() + timeout
    while True:
        v = view(server, gid, token)
        if pred(v) or time.monotonic() > end:
            return v
        time.sleep(0.05)


def test_bad_requests_are_refused_with_a_status_and_a_message_and_change_nothing(server: Server) -> None:
    gid, (ann, bob, watch) = new_game(server, ["human", "human"])
    before = view(server, gid, ann)
    tile = before["players"][0]["hand"][0]
    good = before["legal"][tile][0]["hex"]
    legal = {tuple(r["hex"]) for r in before["legal"][tile]}
    illegal = next(h for h in before["hexes"] if tuple(h) not in legal)

    cases = [
        # (what, path, body or raw bytes, status, words in the message, rule)
        ("unknown game", "/api/games/nosuchgame/move", {"t": ann, "tile": tile, "hex": good}, 404, "no game", None),
        ("invalid token", f"/api/games/{gid}/move", {"t": "forged", "tile": tile, "hex": good}, 403, "not valid", None),
        ("no token", f"/api/games/{gid}/move", {"tile": tile, "hex": good}, 403, "not valid", None),
        ("body not JSON", f"/api/games/{gid}/move", b"{tile: food", 400, "not JSON", None),
        ("body not an object", f"/api/games/{gid}/move", [1, 2], 400, "JSON object", None),
        ("no tile", f"/api/games/{gid}/move", {"t": ann, "hex": good}, 400, "tile", None),
        ("hex not two numbers", f"/api/games/{gid}/move", {"t": ann, "tile": tile, "hex": ["a", 1]}, 400, "hex", None),
        ("choices not an object", f"/api/games/{gid}/move", {"t": ann, "tile": tile, "hex": good, "choices": [1]},
         400, "choices", None),
        ("no such hex", f"/api/games/{gid}/move", {"t": ann, "tile": tile, "hex": [999, 999]}, 409, "no hex", "S-P1"),
        ("no such tile", f"/api/games/{gid}/move", {"t": ann, "tile": "castle", "hex": good}, 409, "unknown tile",
         "S-C2"),
        ("a tile not in hand", f"/api/games/{gid}/move",
         {"t": ann, "tile": "energy" if tile != "energy" else "food", "hex": good}, 409, "holds", "S-T1"),
        ("out of turn", f"/api/games/{gid}/move", {"t": bob, "tile": tile, "hex": good}, 409, "Ann's turn", "S-T1"),
        ("an illegal hex", f"/api/games/{gid}/move", {"t": ann, "tile": tile, "hex": illegal}, 409, "", "S-P"),
        ("a spectator moving", f"/api/games/{gid}/move", {"t": watch, "tile": tile, "hex": good}, 403, "spectator", None),
        ("a stale page", f"/api/games/{gid}/move", {"t": ann, "tile": tile, "hex": good, "version": 0}, 409,
         "changed", None),
        ("nothing to take back", f"/api/games/{gid}/undo", {"t": ann}, 409, "nothing to take back", None),
        ("unknown agent", "/api/games", {"seats": [{"agent": "human"}, {"agent": "deep-blue"}]}, 400, "unknown agent",
         None),
        ("a non-rules file uploaded", "/api/games",
         {"rules_file": {"name": "notes.rules", "text": "Dear diary,\nno rules here.\n"}, "board": "scotland",
          "seats": [{"agent": "human"}, {"agent": "greedy"}]}, 400, "notes.rules:1:", None),
        ("an upload with a bad name", "/api/games",
         {"rules_file": {"name": "../../etc/passwd", "text": "x"}, "seats": [{"agent": "human"}, {"agent": "greedy"}]},
         400, "must end in .rules", None),
        ("a board that is no board", "/api/games",
         {"rules": "scotland", "board_file": {"name": "b.json", "text": "[1, 2, 3]"},
          "seats": [{"agent": "human"}, {"agent": "greedy"}]}, 400, "b.json", None),
        ("a study of a non-record", "/api/study", {"source": {"record": {"hello": "world"}}}, 400, "record", None),
        ("a study of a list", "/api/study", {"source": {"record": [1, 2]}}, 400, "not a game record", None),
        ("a study of a missing example", "/api/study", {"source": {"name": "nope"}}, 400, "no bundled example", None),
        ("a study step out of range", "/api/study", {"source": {"name": "scotland-2p"}, "step": 9999}, 400, "step",
         None),
        ("an unknown address", "/api/nothing-here", None, 404, "no such address", None),
    ]
    for what, path, body, status, words, rule in cases:
        if isinstance(body, bytes):
            got, answer = server.call(path, raw=body)
        else:
            got, answer = server.call(path, body)
        assert got == status, (what, got, answer)
        assert isinstance(answer, dict) and words in answer["error"], (what, answer)
        if rule is not None:
            assert answer.get("rule", "").startswith(rule), (what, answer)
    for path in (f"/api/games/nosuchgame?t={ann}", f"/api/games/{gid}?t=forged", f"/api/games/{gid}/record?t={ann}"):
        got, answer = server.call(path)
        assert got in (403, 404) and answer["error"], (path, answer)
    after = view(server, gid, ann)
    assert (after["version"], after["moves"], after["log"]) == (before["version"], 0, [])
    assert after["players"][0]["hand"] == before["players"][0]["hand"]


def test_two_racing_moves_are_applied_one_at_a_time(server: Server) -> None:
    gid, (ann, bob, _) = new_game(server, ["human", "human"], seed=4)
    v = view(server, gid, ann)
    tile = v["players"][0]["hand"][0]
    hexes = [r["hex"] for r in v["legal"][tile][:8]]
    results: list[int] = []

    def go(h: list[int]) -> None:
        results.append(server.call(f"/api/games/{gid}/move", {"t": ann, "tile": tile, "hex": h})[0])

    threads = [threading.Thread(target=go, args=(h,)) for h in hexes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [200] + [409] * (len(hexes) - 1)
    after = view(server, gid, bob)
    assert after["moves"] == 1 and after["version"] == v["version"] + 1


def test_a_seat_sees_its_own_secrets_and_nobody_else_s(server: Server) -> None:
    gid, (ann, bob, watch) = new_game(server, ["human", "human"], seed=2)
    a, b, w = view(server, gid, ann), view(server, gid, bob), view(server, gid, watch)
    assert a["players"][0]["hand"] and a["players"][0]["set_aside"]  # Scotland: the owner may look (S-U4)
    assert "legal" in a and a["you"] == 0
    for v, hidden in ((b, [0]), (w, [0, 1]), (a, [1])):
        for seat in hidden:
            p = v["players"][seat]
            assert not {"hand", "set_aside", "missions"} & set(p), (seat, p)
            assert p["hand_count"] == 1 and p["set_aside_count"] == 2
    assert "legal" not in b and "legal" not in w and w["you"] is None
    # Ireland: the set-aside tiles are face down even for their owner (I-U1)
    gid, (ann, _, _) = new_game(server, ["human", "human"], rules="ireland")
    me = view(server, gid, ann)["players"][0]
    assert "set_aside" not in me and me["set_aside_count"] == 4


def test_I_R1_a_question_is_asked_after_the_tile_is_down_and_its_answer_recorded(server: Server) -> None:
    """I-R1 in Ireland: the placement is committed, then the options are shown; another placement is
    refused until the question is answered; the answer is in the record."""
    gid, (ann, bob, _) = new_game(server, ["human", "human"], rules="ireland", seed=3)
    for _ in range(40):
        v = view(server, gid, ann if view(server, gid, ann)["turn"] == 0 else bob)
        token = ann if v["you"] == 0 else bob
        tile, rows = next(iter(v["legal"].items()))
        asking = [r for t, rs in v["legal"].items() for r in rs if r["asks"]]
        if asking:
            row = asking[0]
            tile = next(t for t, rs in v["legal"].items() if row in rs)
            break
        assert server.call(f"/api/games/{gid}/move", {"t": token, "tile": tile, "hex": rows[0]["hex"]})[0] == 200
    else:
        pytest.fail("no tower question came up")
    moves = v["moves"]
    got, answer = server.call(f"/api/games/{gid}/move", {"t": token, "tile": tile, "hex": row["hex"]})
    assert (got, answer["status"]) == (200, "question")
    pend = view(server, gid, token)["pending"]
    assert pend["hex"] == row["hex"] and pend["questions"][0]["options"]
    assert view(server, gid, token)["moves"] == moves  # not yet a move
    other = next(r for r in v["legal"][tile] if r["hex"] != row["hex"])
    got, answer = server.call(f"/api/games/{gid}/move", {"t": token, "tile": tile, "hex": other["hex"]})
    assert got == 400 and "already placed" in answer["error"]
    q = pend["questions"][0]
    choices = {x["landmark"]: {x["key"]: x["options"][0]["value"]} for x in pend["questions"]}
    got, answer = server.call(f"/api/games/{gid}/move", {"t": token, "tile": tile, "hex": row["hex"],
                                                        "choices": choices})
    assert (got, answer["status"]) == (200, "moved"), answer
    last = view(server, gid, token)["log"][-1]
    assert q["landmark"] in last["choices"] and last["choices"][q["landmark"]] is not False
    assert any(q["landmark"] in e["text"] for e in last["events"])


def test_a_take_back_that_would_reveal_the_agent_s_tile_is_refused(server: Server) -> None:
    """Once the agent has answered, its move showed the tile it held: a take-back would let the person
    replay knowing it (hardening, second round, finding 4), so it is refused with that reason."""
    gid, (ann, _) = new_game(server, ["human", "greedy"], seed=5)  # an agent's seat has no link
    v = view(server, gid, ann)
    tile = v["players"][0]["hand"][0]
    assert server.call(f"/api/games/{gid}/move", {"t": ann, "tile": tile, "hex": v["legal"][tile][0]["hex"]})[0] == 200
    v = wait_for(server, gid, ann, lambda x: x["moves"] == 2)
    assert not v["can_undo"] and "has moved since" in v["undo_refused"]
    got, answer = server.call(f"/api/games/{gid}/undo", {"t": ann})
    assert got == 409 and "has moved since" in answer["error"]
    assert view(server, gid, ann)["moves"] == 2


def test_serve_without_the_web_extra_says_what_to_install(run_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "rebirth_dsl.web.app", None)  # as if Starlette were not installed
    code, _, err = run_cli("serve", "--port", "0")
    assert code == 1 and "pip install 'rebirth-dsl[web]'" in err


def test_the_page_and_its_files_are_served(server: Server, tmp_path: Path) -> None:
    import urllib.request

    for path in ("/", "/study", "/static/app.js", "/static/style.css"):
        with urllib.request.urlopen(server.url + path, timeout=10) as r:
            assert r.status == 200 and r.read()
