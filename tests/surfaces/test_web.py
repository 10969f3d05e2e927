"""The web app in a real headless browser (Playwright driving the system Chromium): a game against a
greedy agent played to the end by clicks and checked against `rebirth eval` of its downloaded record;
an Ireland tower question answered in the page; a record stepped through and branched; a second seat's
browser that cannot move for the first and never receives its hand; a server restart in mid-game.
The screenshots in docs/ are made here (REBIRTH_SCREENSHOTS=1 writes them)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

try:  # never skipped for want of the web extra: CI installs it (only a missing browser skips, in test_web.py)
    import starlette  # noqa: F401
    import uvicorn  # noqa: F401
except ImportError as e:
    pytest.fail(f"the web extra is not installed ({e.name}): pip install -e '.[web]'", pytrace=False)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install playwright")

from web_helpers import CHROMIUM, DOCS, ROOT, Server, new_game  # noqa: E402 - after the skips

if not Path(CHROMIUM).is_file():
    pytest.skip("no Chromium to drive: apt-get install -y chromium (Playwright cannot download its own here)",
                allow_module_level=True)
TIMEOUT = 20_000  # ms: one step of a test (an agent's reply, a page load)




def new_page(browser, url: str):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = ctx.new_page()
    page.set_default_timeout(TIMEOUT)
    page.goto(url)
    return page


def moves_shown(page) -> int:
    return page.locator("#log li.move").count()


def my_turn(page) -> str:
    """Wait until the page shows a move to make, a question, a pass, or the end: which one."""
    page.wait_for_selector("polygon.hex.legal, #question:not([hidden]), #passbox:not([hidden]), #result:not([hidden])")
    if page.locator("#result:not([hidden])").count():
        return "over"
    if page.locator("#question:not([hidden])").count():
        return "question"
    if page.locator("#passbox:not([hidden])").count():
        return "pass"
    return "move"


def play_one(page) -> str:
    """Make one move by clicking (the first highlighted hex, or the pass button), and wait until the page
    has taken it in."""
    state = my_turn(page)
    if state == "over":
        return state
    n = moves_shown(page)
    if state == "question":
        page.locator("#question button.answer").first.click()
    elif state == "pass":
        page.click("#pass")
    else:
        page.locator("polygon.hex.legal").first.click()
    if state != "question" or page.locator("#question .q").count() == 1:
        page.wait_for_function(f"document.querySelectorAll('#log li.move').length > {n}")
    return state


def test_a_game_against_greedy_played_to_the_end_by_clicks(browser, server: Server, run_cli, tmp_path: Path) -> None:
    page = new_page(browser, server.url + "/")
    page.fill("#seed", "11")
    page.select_option("#seats .seat:nth-of-type(2) select.agent", "greedy")
    page.click("#create")
    page.wait_for_selector("#links:not([hidden])")
    assert page.locator("a.seatlink").count() == 2  # Ann's link and the spectator's; the agent has none
    page.click("#go")
    page.wait_for_url(re.compile(r"/game/"))
    turns = 0
    while play_one(page) != "over":
        turns += 1
        if turns == 12:  # a position in progress, with a hover over a legal hex, for the README
            page.wait_for_selector("polygon.hex.legal")
            page.locator("polygon.hex.legal").nth(2).hover()
            page.wait_for_selector("#hover:not([hidden])")
            assert re.search(r"\(-?\d+,-?\d+\) \w+: [+-]?\d+", page.inner_text("#hover"))
            page.screenshot(path=str(DOCS / "web-game.png"))
        assert turns < 60
    assert turns >= 30  # Scotland, two players: 34 tiles each (S-U4), every one placed by a click
    # the log shows the agent's moves with their scoring events and rule ids
    assert page.locator("#log li.move").count() == 68
    assert page.locator("#log .rule", has_text="S-F1").count() > 0
    cells = page.locator("#result td.total[data-player]")
    page_totals = {cells.nth(i).get_attribute("data-player"): int(cells.nth(i).inner_text()) for i in range(cells.count())}
    assert len(page_totals) == 2
    winner = page.inner_text("#winner")
    with page.expect_download() as dl:
        page.click("#download")
    rec_path = tmp_path / "game.json"
    dl.value.save_as(rec_path)
    code, out, err = run_cli("eval", str(rec_path), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert {p["name"]: p["score"] for p in result["players"]} == page_totals
    assert all(w in winner for w in result["winners"]) and result["decided_by"] in winner
    rec = json.loads(rec_path.read_text())
    assert rec["rules"] == "scotland" and rec["agents"] == ["human", "greedy"] and len(rec["moves"]) == 68
    page.context.close()


def test_an_ireland_tower_question_is_answered_in_the_page_and_recorded(browser, server: Server) -> None:
    gid, (ann, _) = new_game(server, ["human", "greedy"], rules="ireland", seed=3)
    page = new_page(browser, f"{server.url}/game/{gid}?t={ann}")
    for _ in range(30):
        assert my_turn(page) in ("move", "pass")
        view = server.call(f"/api/games/{gid}?t={ann}")[1]
        asking = [(t, r) for t, rows in view["legal"].items() for r in rows if r["asks"]]
        if asking:
            tile, row = asking[0]
            break
        play_one(page)
    else:
        pytest.fail("no tower question came up in 30 turns")
    if page.locator("#hand button.tile").count() > 1:  # two tiles in hand: choose the one that touches
        page.click(f"#hand button.tile[data-tile='{tile}']")
    n = moves_shown(page)
    page.locator(f"polygon.hex[data-i='{row['index']}']").click()
    page.wait_for_selector("#question:not([hidden])")
    landmark = page.get_attribute("#question .q", "data-landmark")
    assert landmark == row["asks"][0]
    assert page.locator("#question button.answer:not(.decline)").count() >= 1
    page.locator("#question .q").first.locator("button.answer").first.click()
    for extra in page.locator("#question .q").all()[1:]:  # two towers at once: answer both
        extra.locator("button.answer").first.click()
    page.wait_for_function(f"document.querySelectorAll('#log li.move').length > {n}")
    mine = page.locator("#log li.mine").first
    assert landmark in mine.inner_text()
    last = next(m for m in reversed(server.call(f"/api/games/{gid}?t={ann}")[1]["log"]) if m["seat"] == 0)
    assert last["hex"] == row["hex"] and last["choices"][landmark] not in (None, False, True)
    page.context.close()


def test_a_record_stepped_through_and_branched(browser, server: Server) -> None:
    page = new_page(browser, server.url + "/study")
    page.set_input_files("#study-file", str(ROOT / "examples" / "scotland-3p.json"))
    page.click("#study-open")
    page.wait_for_selector("#studyview:not([hidden])")
    total = len(json.loads((ROOT / "examples" / "scotland-3p.json").read_text())["moves"])
    assert page.inner_text("#step") == f"move 0 of {total}"
    for k in range(1, 4):
        page.click("#next")
        page.wait_for_function(f"document.querySelector('#step').textContent === 'move {k} of {total}'")
    assert page.inner_text("#stepmove").startswith("3.")
    page.locator("#slider").fill("40")
    page.wait_for_function(f"document.querySelector('#step').textContent === 'move 40 of {total}'")
    assert "40." in page.inner_text("#stepmove") and page.locator("#stepmove .rule").count() >= 1
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"document.querySelector('#step').textContent === 'move 39 of {total}'")
    page.screenshot(path=str(DOCS / "web-study.png"))
    page.click("#last")
    page.wait_for_selector("#study-result:not([hidden])")
    assert "Winner" in page.inner_text("#study-result")
    page.locator("#slider").fill("30")
    page.wait_for_function(f"document.querySelector('#step').textContent === 'move 30 of {total}'")
    page.click("#branch")  # the first seat a person, the others greedy
    page.wait_for_selector("#branchgo")
    page.click("#branchgo")
    page.wait_for_url(re.compile(r"/game/"))
    page.wait_for_selector("#turntext")
    page.wait_for_function("document.querySelectorAll('#log li.move').length >= 30")
    assert page.locator("#log li.move").count() >= 30
    page.context.close()


def test_another_seat_s_browser_cannot_move_for_it_and_never_gets_its_hand(browser, server: Server) -> None:
    gid, (ann, bob, _) = new_game(server, ["human", "human"], seed=8)
    page_a = new_page(browser, f"{server.url}/game/{gid}?t={ann}")
    seen: list[dict] = []
    ctx_b = browser.new_context(viewport={"width": 1200, "height": 900})
    page_b = ctx_b.new_page()
    page_b.set_default_timeout(TIMEOUT)

    def keep(response) -> None:
        if "/api/" in response.url:
            try:
                seen.append(response.json())
            except Exception:  # noqa: BLE001 - not JSON: nothing to look into
                pass

    page_b.on("response", keep)
    page_b.goto(f"{server.url}/game/{gid}?t={bob}")
    page_b.wait_for_selector("#turntext")
    assert "Ann to play" in page_b.inner_text("#turntext")
    assert page_b.locator("polygon.hex.legal").count() == 0
    hand_a = server.call(f"/api/games/{gid}?t={ann}")[1]["players"][0]["hand"][0]
    hex_a = server.call(f"/api/games/{gid}?t={ann}")[1]["legal"][hand_a][0]["hex"]
    # Bob's page tries Ann's move with its own link: the server refuses it, citing the turn rule
    refused = page_b.evaluate("""async ([gid, t, tile, hex]) => {
        const r = await fetch(`/api/games/${gid}/move`, {method: "POST", headers: {"Content-Type": "application/json"},
                               body: JSON.stringify({t, tile, hex})});
        return [r.status, await r.json()];
    }""", [gid, bob, hand_a, hex_a])
    assert refused[0] == 409 and refused[1]["rule"] == "S-T1" and "Ann's turn" in refused[1]["error"]
    play_one(page_a)
    page_b.wait_for_selector("polygon.hex.legal")  # now it is Bob's turn, in Bob's page
    assert "Your turn" in page_b.inner_text("#turntext")
    play_one(page_b)
    page_a.wait_for_selector("polygon.hex.legal")
    views = [v for v in seen if isinstance(v, dict) and "players" in v]
    assert views
    for v in views:
        ann_seen = v["players"][0]
        assert not {"hand", "set_aside", "missions"} & set(ann_seen), ann_seen
        assert v["you"] == 1 and (v["turn"] == 1 or "legal" not in v)
    page_a.context.close()
    ctx_b.close()


def test_a_server_restart_in_mid_game_resumes_it(browser, tmp_path: Path) -> None:
    data = tmp_path / "store"
    first = Server(data, agent_delay=30.0)  # the agent is still "thinking" when the server stops
    try:
        gid, (ann, _) = new_game(first, ["human", "greedy"], seed=6)
        page = new_page(browser, f"{first.url}/game/{gid}?t={ann}")
        play_one(page)
        page.wait_for_function("document.querySelector('#turntext').textContent.includes('Bob')")
    finally:
        first.stop()
    second = Server(data)
    try:
        assert "1 unfinished game resumed" in second.banner
        page.goto(f"{second.url}/game/{gid}?t={ann}")
        page.wait_for_selector("polygon.hex.legal")  # the agent's turn was played after the restart
        assert page.locator("#log li.move").count() == 2
        play_one(page)
        page.wait_for_function("document.querySelectorAll('#log li.move').length >= 4")
        assert server_moves(second, gid, ann) >= 4
    finally:
        page.context.close()
        second.stop()


def server_moves(server: Server, gid: str, token: str) -> int:
    return server.call(f"/api/games/{gid}?t={token}")[1]["moves"]
