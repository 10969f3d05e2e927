"""Analysis in the browser (issue 24 item 6, issue 26 item 3): a seat's hints and forecast in a game (off when
the seats agreed so), the analysis board (a pasted notation, a position set up by clicking), the review of
a finished game with its graph.

The hidden-information property is tested in-process: the hidden parts of another seat are rearranged
(what the asking seat cannot tell apart) and the hint and forecast must not change at all; and the other
seat's cards are never named. The browser tests drive the system Chromium with Playwright and are few (the
box is shared): a hint in a game, the analysis board pasted and set up, and the review graph's click.
REBIRTH_SCREENSHOTS=1 writes docs/web-analysis.png."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from web_helpers import DOCS, ROOT, Server, new_game

from rebirth_dsl.play.table import table_from_record
from rebirth_dsl.records.position import position_of, write_position

try:  # never skipped for want of the web extra: CI installs it (only a missing browser skips)
    import starlette  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as e:
    pytest.fail(f"the web extra is not installed ({e.name}): pip install -e '.[web]'", pytrace=False)

from rebirth_dsl.web import analysis  # noqa: E402 - after the check
from rebirth_dsl.web.hub import Hub, WebError  # noqa: E402

TIMEOUT = 20_000  # ms: one step of a test


def scotland_3p_at(k: int) -> str:
    """The notation of the bundled three-player game after k moves (every part known)."""
    path = ROOT / "examples" / "scotland-3p.json"
    table = table_from_record(json.loads(path.read_text()), path, at=k, playable=False)
    return write_position(position_of(table.game, "scotland", "scotland"))


def cli_json(args: list[str], stdin: str) -> dict:
    """`rebirth ARGS --json` with the notation on standard input."""
    out = subprocess.run([sys.executable, "-m", "rebirth_dsl", *args, "--json"], input=stdin, capture_output=True,
                         text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout)


# ----- in-process: what a seat's hint and forecast may depend on -------------------------------------------
@pytest.fixture()
def hub(tmp_path: Path):
    h = Hub(tmp_path / "data", agent_delay=0.0)
    yield h
    h.stop()
    h.store.close()


def two_seats(hub: Hub, **extra) -> tuple[str, list[str]]:
    live, links = hub.create({"rules": "scotland", "seed": 3, **extra,
                              "seats": [{"name": "Ann", "agent": "human"}, {"name": "Bob", "agent": "human"}]})
    return live.id, [link["token"] for link in links]


def test_a_seat_s_hint_and_forecast_do_not_depend_on_what_it_cannot_see(hub: Hub) -> None:
    # the bundled three-player game after 20 moves, played on: Cat to move, Ann and Bob hold mission cards
    live, links = hub.create({"from": {"name": "scotland-3p"}, "at": 20,
                              "seats": [{"agent": "human"}, {"agent": "human"}, {"agent": "human"}]})
    gid, cat = live.id, links[2]["token"]
    an = analysis.Analyst(hub)
    before_hint, before_fc = an.seat_hint(gid, cat), an.seat_forecast(gid, cat)
    g = hub.get(gid).table.game
    assert g.turn == 2 and g.held[0] and g.held[1]
    text = json.dumps([before_hint, before_fc])
    for q in (0, 1):  # the others' hidden cards are never named to Cat
        for card in g.held[q]:
            assert card not in text
    # rearrange what Cat cannot see: Ann's and Bob's hands and supplies (one pool of each colour to her),
    # their cards swapped with the deck's, the deck's order, her own supply's order (S-T1: face down)
    deck = next(iter(g.decks))
    for q in (0, 1):
        pool = g.hand[q] + g.supply[q]
        k = len(g.hand[q])
        turned = pool[1:] + pool[:1]
        while turned[:k] == g.hand[q]:
            turned = turned[1:] + turned[:1]
        g.hand[q], g.supply[q] = turned[:k], turned[k:]
        n = len(g.held[q])
        g.held[q], g.decks[deck] = g.decks[deck][:n], g.held[q] + g.decks[deck][n:]
    g.decks[deck].reverse()
    g.supply[2].reverse()
    assert an.seat_hint(gid, cat) == before_hint
    assert an.seat_forecast(gid, cat) == before_fc


def test_the_hint_is_the_engine_s_hint_and_refusals_name_their_reason(hub: Hub) -> None:
    gid, (ann, bob, watch) = two_seats(hub)
    an = analysis.Analyst(hub)
    h = an.seat_hint(gid, ann)
    g = hub.get(gid).table.game
    # the moves are those of `rebirth hint` (play/forecast.hint): every legal move of Ann's hand is listed
    legal = sum(len(g.legal_hexes(x[0])[0]) or 1 for x in dict.fromkeys(g.hand[0]))
    assert len(h["moves"]) + len(h["screened"]) == legal
    assert len(h["moves"]) == min(analysis.HINT_WIDTH, legal)
    assert all(m["does"] for m in h["moves"])  # each with what it does now (play/reasons.py)
    means = [m["margin"]["mean"] for m in h["moves"]]
    assert means == sorted(means, reverse=True)
    with pytest.raises(WebError) as e:
        an.seat_hint(gid, bob)
    assert e.value.status == 409 and "Ann's turn" in e.value.message
    with pytest.raises(WebError) as e:
        an.seat_forecast(gid, watch)
    assert e.value.status == 403 and "spectator" in e.value.message
    with pytest.raises(WebError) as e:
        an.seat_hint(gid, "forged")
    assert e.value.status == 403
    off, (a2, _b2, _w2) = two_seats(hub, hints=False)
    for ask in (an.seat_hint, an.seat_forecast):
        with pytest.raises(WebError) as e:
            ask(off, a2)
        assert e.value.status == 403 and "without hints" in e.value.message
    # the agreement is kept with the game: a restarted server (a new Hub on the same store) still refuses
    hub2 = Hub(hub.folder, agent_delay=0.0)
    try:
        with pytest.raises(WebError):
            analysis.Analyst(hub2).seat_hint(off, a2)
        assert hub2.view(off, a2)["hints"] is False and hub2.view(gid, ann)["hints"] is True
    finally:
        hub2.stop()
        hub2.store.close()


def test_a_posted_notation_is_analysed_as_the_commands_analyse_it(hub: Hub) -> None:
    an = analysis.Analyst(hub)
    text = scotland_3p_at(20)
    board = an.analyse(text)
    assert board["notation"] == text  # written back as `rebirth position` writes it
    assert [p["score"] for p in board["players"]] == [15, 20, 14]  # the notation's own `score` clauses (docs)
    cat = board["players"][2]
    assert board["turn"] == 2 and cat["name"] == "Cat"
    assert board["legal"] and all(r["text"] for rows in board["legal"].values() for r in rows)
    # the same answers as the commands give on the same notation (`rebirth hint -`, `eval - --forecast`)
    h = an.position_hint(text)
    assert h == cli_json(["hint", "-", "--playouts", str(analysis.HINT_PLAYOUTS), "--width", str(analysis.HINT_WIDTH),
                          "--agents", analysis.HINT_AGENTS], text)
    f = an.position_forecast(text)
    assert f == cli_json(["eval", "-", "--forecast", "--playouts", str(analysis.FORECAST_PLAYOUTS), "--agents",
                          analysis.FORECAST_AGENTS], text)["forecast"]
    assert len({m["margin"]["mean"] for m in h["moves"]}) > 1  # the moves differ in expected final margin


def test_the_board_is_set_up_by_edits_that_come_back_as_notation(hub: Hub) -> None:
    an = analysis.Analyst(hub)
    text = scotland_3p_at(0)
    start = an.analyse(text)
    taken = {tuple(t["hex"]) for s in start["setup"]["seats"] for t in s["tiles"]}
    # a free land hex that takes a settlement: one of the legal hexes of Ann's first move
    tile = next(iter(start["legal"]))
    free = next(tuple(r["hex"]) for r in start["legal"][tile] if tuple(r["hex"]) not in taken)
    put = an.edit(text, {"op": "put", "player": "Bob", "tile": tile, "hex": list(free)})
    assert f"{tile} ({free[0]},{free[1]})" in put["notation"].split("Bob {")[1].split("}")[0]
    assert put["notation"] != text
    bob = lambda b: next(s for s in b["setup"]["seats"] if s["name"] == "Bob")  # noqa: E731
    assert sorted(bob(put)["supply"] + [tile]) == sorted(bob(start)["supply"])  # the tile came from his supply
    gone = an.edit(put["notation"], {"op": "remove", "hex": list(free)})
    assert bob(gone)["tiles"] == bob(start)["tiles"]  # taken off again: back in his supply, drawn last
    assert bob(gone)["supply"] == [x for x in bob(put)["supply"]] + [tile]
    lm = start["setup"]["landmarks"][0]["name"]
    owned = an.edit(text, {"op": "owner", "landmark": lm, "player": "Cat"})
    assert lm in next(s for s in owned["setup"]["seats"] if s["name"] == "Cat")["owns"]
    hand = an.edit(text, {"op": "hand", "player": "Ann", "tiles": ["food"]})
    assert next(s for s in hand["setup"]["seats"] if s["name"] == "Ann")["hand"] == ["food"]
    assert an.edit(text, {"op": "turn", "player": "Bob"})["turn"] == 1
    # a tile the mix does not have is refused by the notation's own check, at its character
    with pytest.raises(WebError) as e:
        an.edit(text, {"op": "put", "player": "Ann", "tile": "settlement:9", "hex": list(free)})
    assert e.value.status == 400 and "notation:" in e.value.message and "^" in e.value.message
    with pytest.raises(WebError):
        an.edit(text, {"op": "put", "player": "Zed", "tile": tile, "hex": list(free)})


def test_a_tile_put_with_the_rules_holders_challenges_the_castle_next_to_it(hub: Hub) -> None:
    an = analysis.Analyst(hub)
    text = scotland_3p_at(0)
    g = an.read(text)[1].game
    t = g.t
    farms = {"food", "energy"}  # S-K4: farms are food and energy tiles

    def fits(h: int) -> list[str]:
        """The tiles the notation's check lets lie on hex h (tried: the hex kinds decide)."""
        out = []
        for tile in ("food", "energy", "settlement:1"):
            try:
                an.edit(text, {"op": "put", "player": "Ann", "tile": tile, "hex": list(t.coords[h])})
                out.append(tile)
            except WebError:
                pass
        return out

    # a castle with three free hexes around it, the first two taking tiles alike (both farms, or neither)
    found = None
    for lm in range(len(t.landmark_name)):
        if t.hex_kind[t.landmark_hex[lm]] != "castle":
            continue
        around = [(h, fits(h)) for h in range(len(t.coords)) if lm in g.lm_adj[h] and g.owner[h] < 0]
        around = [(h, f) for h, f in around if f]
        for i, (h1, f1) in enumerate(around):
            for h2, f2 in around[i + 1:]:
                t2 = next((x for x in f2 if (x in farms) == (f1[0] in farms)), None)
                rest = [(h, f) for h, f in around if h not in (h1, h2)]
                if t2 is not None and rest and found is None:
                    found = (lm, h1, f1[0], h2, t2, *rest[0])
        if found:
            break
    assert found, "Scotland has castles with free hexes around them"
    lm, h1, t1, h2, t2, h3, f3 = found
    name = t.landmark_name[lm]
    holder = lambda b: [s["name"] for s in b["setup"]["seats"] if name in s["owns"]]  # noqa: E731
    rules = {"holders": "rules"}
    one = an.edit(text, {"op": "put", "player": "Bob", "tile": t1, "hex": list(t.coords[h1]), **rules})
    assert holder(one) == ["Bob"]  # S-K2: nobody held it, the placer takes it
    two = an.edit(one["notation"], {"op": "put", "player": "Ann", "tile": t2, "hex": list(t.coords[h2]), **rules})
    assert holder(two) == ["Bob"]  # S-K3 1 tile to 1, S-K4 farms equal, S-K5: the placer loses, Bob keeps it
    three = an.edit(two["notation"], {"op": "put", "player": "Ann", "tile": f3[0], "hex": list(t.coords[h3]), **rules})
    assert holder(three) == ["Ann"]  # S-K3: Ann 2 adjacent tiles to Bob's 1, the placer takes it
    set_only = an.edit(text, {"op": "put", "player": "Bob", "tile": t1, "hex": list(t.coords[h1])})
    assert holder(set_only) == []  # holders set by hand: a tile changes none


# ----- over HTTP: the endpoints' bounds --------------------------------------------------------------------
def test_notation_errors_come_back_at_their_character_never_a_traceback(server: Server) -> None:
    code, out = server.call("/api/position", {"notation": "position scotland on scotland  players A, B  move x"})
    assert code == 400
    assert out["error"].startswith("notation:1:51: ") and "\n" in out["error"] and "^" in out["error"]
    # a file path where the ruleset is named: refused before anything is read, and no file's text shown
    for named in ('"/etc/passwd"', '"../../etc/hostname"', '"scotland.rules"'):
        code, out = server.call("/api/position", {"notation": f"position {named} on scotland  players A, B"})
        assert code == 400 and "bundled" in out["error"] and "root:" not in out["error"], out
    code, out = server.call("/api/position", {"notation": "position scotland on scotland  players A, B",
                                              "edit": {"op": "melt"}})
    assert code == 400 and "op:" in out["error"]
    assert "Traceback" not in server.log()


def test_analysis_requests_from_other_pages_are_refused(server: Server) -> None:
    gid, (ann, bob, watch) = new_game(server, ["human", "human"])
    text = scotland_3p_at(5)
    for path, body in ((f"/api/games/{gid}/hint", {"t": ann}), (f"/api/games/{gid}/forecast", {"t": ann}),
                       ("/api/position", {"notation": text}), ("/api/position/hint", {"notation": text}),
                       ("/api/position/from", {"source": {"name": "scotland-3p"}, "step": 3}),
                       ("/api/review", {"source": {"name": "scotland-2p"}})):
        assert server.call(path, body, headers={"X-Rebirth-Page": None})[0] == 403, path
        assert server.call(path, body, headers={"Origin": "http://evil.example"})[0] == 403, path
        assert server.call(path, body, headers={"Content-Type": "text/plain"})[0] == 415, path
    code, h = server.call(f"/api/games/{gid}/hint", {"t": ann})
    assert code == 200 and h["player"] == "Ann" and h["moves"]
    # a burst of forecasts on one game is cut short (0.5 a second after a burst of 4, one already taken):
    # eight asked at once, so the refill while they run does not matter
    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(lambda _: server.call(f"/api/games/{gid}/forecast", {"t": bob})[0], range(8)))
    assert sorted(set(codes)) == [200, 429] and codes.count(200) <= 4, codes


def test_the_review_and_a_record_s_position_for_the_board(server: Server) -> None:
    rec = json.loads((ROOT / "examples" / "scotland-2p.json").read_text())
    code, rv = server.call("/api/review", {"source": {"name": "scotland-2p"}})
    assert code == 200 and len(rv["moves"]) == len(rec["moves"])
    for m in rv["moves"]:
        assert abs(sum(m["win_after"].values()) - 1.0) < 1e-3  # shares of the wins: one game, one win
    # Ireland's set-aside tiles lie face down (I-U1): a recorded take of one is made blind on a re-dealt copy
    code, rv = server.call("/api/review", {"source": {"name": "ireland-2p"}})
    assert code == 200 and len(rv["moves"]) == len(json.loads((ROOT / "examples" / "ireland-2p.json").read_text())["moves"])
    code, p = server.call("/api/position/from", {"source": {"name": "scotland-2p"}, "step": 7})
    assert code == 200 and "move 7" in p["notation"]
    assert server.call("/api/position/from", {"source": {"path": "/etc/passwd"}, "step": 0})[0] == 403


# ----- the browser -----------------------------------------------------------------------------------------


def open_page(browser, url: str, width: int = 1366, height: int = 900):
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    return page, errors


def test_a_seat_asks_for_a_hint_and_a_game_without_hints_offers_none(browser, server: Server) -> None:
    gid, (ann, bob, watch) = new_game(server, ["human", "human"], seed=5)
    page, errors = open_page(browser, f"{server.url}/game/{gid}?t={ann}")
    page.click("#askhint")
    page.wait_for_selector("#hintout li.hintmove")
    moves = page.locator("#hintout li.hintmove")
    assert moves.count() == analysis.HINT_WIDTH
    assert all(page.locator("#hintout li.hintmove .does").all_inner_texts())  # each move says what it does
    page.click("#askforecast")
    page.wait_for_selector("#hintout table.forecast")
    assert page.locator("#hintout table.forecast tr").count() == 3  # a header and two players
    page.context.close()
    _, made = server.call("/api/games", {"rules": "scotland", "hints": False, "seats": [
        {"name": "Ann", "agent": "human"}, {"name": "Bob", "agent": "human"}]})
    page, errors2 = open_page(browser, f"{server.url}{made['links'][0]['url']}")
    page.wait_for_selector("#turntext")
    assert page.locator("#hintbox").is_hidden()
    page.context.close()
    assert not errors and not errors2, errors + errors2


def test_the_analysis_board_pasted_set_up_and_hinted(browser, server: Server) -> None:
    page, errors = open_page(browser, f"{server.url}/analyse")
    page.wait_for_selector("#an-svg polygon.hex")
    text = scotland_3p_at(20)
    page.fill("#notation", text)
    page.click("#an-show")
    page.wait_for_function("document.querySelector('#an-legal').textContent.includes('Cat to move')")
    page.click("#an-hint")
    page.wait_for_selector("#an-out li.hintmove")
    assert page.locator("#an-out li.hintmove").count() >= 2
    if os.environ.get("REBIRTH_SCREENSHOTS") == "1":
        page.screenshot(path=str(DOCS / "web-analysis.png"))
    # set up: a tile of Bob's on a free hex that takes it (one where Cat's tile may go), by clicking it; the
    # notation shows it; a second click takes it off again
    hexes = page.evaluate("A.view.hexes")
    taken = page.evaluate("A.view.setup.seats.flatMap((s) => s.tiles.map((t) => t.hex.join(',')))")
    tile = page.evaluate("Object.keys(A.view.legal)[0]")
    legal = page.evaluate("Object.values(A.view.legal)[0].map((r) => r.hex.join(','))")
    free = next(h for h in legal if h not in taken)
    i = [",".join(map(str, h)) for h in hexes].index(free)
    page.select_option("#ed-player", "Bob")
    page.select_option("#ed-tile", tile)
    page.click("#ed-mode")  # the default mode: put a tile
    page.locator(f"#an-svg polygon.hex[data-i='{i}']").click(force=True)
    want = f"({free})"
    page.wait_for_function("(w) => document.querySelector('#notation').value.includes(w)", arg=want)
    bob = page.input_value("#notation").split("Bob {")[1].split("}")[0]
    assert want in bob.split(tile)[1]  # among Bob's tiles of that kind
    page.locator(f"#an-svg polygon.hex[data-i='{i}']").click(force=True)
    page.wait_for_function("(w) => !document.querySelector('#notation').value.includes(w)", arg=want)
    tiles_line = [ln for ln in text.split("Bob {")[1].split("}")[0].splitlines() if "tiles" in ln]
    assert tiles_line[0].strip() in page.input_value("#notation")  # Bob's tiles as they were
    page.context.close()
    assert not errors, errors


def test_the_review_graph_of_a_finished_game_goes_to_the_move_clicked(browser, server: Server) -> None:
    page, errors = open_page(browser, f"{server.url}/study?name=scotland-2p")
    page.wait_for_selector("#review:not([hidden])")
    page.click("#review")
    page.wait_for_selector("#reviewgraph circle.rvpt")
    total = page.locator("#reviewgraph circle.rvpt").count()
    assert total == len(json.loads((ROOT / "examples" / "scotland-2p.json").read_text())["moves"])
    page.locator("#reviewgraph circle.rvpt[data-step='10']").click(force=True)
    page.wait_for_function("document.querySelector('#step').textContent.startsWith('move 10 of')")
    assert page.locator("#reviewgraph circle.rvpt.current").get_attribute("data-step") == "10"
    # and from there to the analysis board: the position after move 10
    page.click("#analysehere")
    page.wait_for_url("**/analyse")
    page.wait_for_function("document.querySelector('#notation').value.includes('move 10')")
    page.context.close()
    assert not errors, errors
