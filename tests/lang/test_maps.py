"""Map files (boards/maps/*.txt, docs/maps.md): they build the bundled boards byte for byte, `rebirth board
build` writes and checks boards, bad maps are refused at file:line:col, a new kind of hex is a legend
line, and the game facts a board must meet are checked by `rebirth check RULES --board BOARD`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import BOARDS, RULES, beyond_bundled_findings

from rebirth_dsl.board.maps import load_map, parse_map, render_board
from rebirth_dsl.board.model import load_board, validate_board_data
from rebirth_dsl.check.checks import check
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang.parser import load_rules

MAPS = BOARDS / "maps"

TINY = """\
# a tiny map for the error cases
[board]
name  = tiny
title = A tiny map

[legend]
~  kind  sea
.  kind  plain
s  kind  settlement  area
C  kind  castle      landmark
n  tags  neutral

[kinds]
0|~ . s s
1| . C . ~

[labels]
0|~ . A A
1| . a . ~

[tags]
0|~ n . .
1| . . n ~

[areas]
A  Town

[landmarks]
a  Keep  tags=flag
"""


def _errors(text: str, file: str = "tiny.txt") -> str:
    with pytest.raises(RebirthError) as ei:
        parse_map(text, file)
    for d in ei.value.diagnostics:
        assert d.file == file and d.line > 0 and d.col > 0, d
    return ei.value.render()


def _put(text: str, section: str, row: int, x: int, ch: str) -> str:
    """Redraw one character of a picture: row `row`, text column `x` after the `|`."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"[{section}]"))
    i = next(i for i in range(start + 1, len(lines)) if lines[i].split("|", 1)[0].strip() == str(row))
    head, bar, body = lines[i].partition("|")
    assert body[x] != " ", (section, row, x)
    lines[i] = head + bar + body[:x] + ch + body[x + 1:]
    return "".join(lines)


# ----- the bundled maps ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["scotland", "ireland"])
def test_map_builds_the_committed_board_byte_for_byte(name: str) -> None:
    """boards/maps/NAME.txt is the single source of boards/NAME.json."""
    built = render_board(load_map(MAPS / f"{name}.txt"))
    assert built == (BOARDS / f"{name}.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["scotland", "ireland"])
def test_built_board_checks_clean_against_its_rules(name: str, tmp_path: Path) -> None:
    """The game facts (neutral count, areas, tags, abilities, named landmarks) hold on both maps."""
    out = tmp_path / f"{name}.json"
    out.write_text(render_board(load_map(MAPS / f"{name}.txt")), encoding="utf-8")
    assert beyond_bundled_findings(check(load_rules(RULES / f"{name}.rules"), load_board(out), str(out),
                                         strict=True)) == []


def test_tiny_map_builds() -> None:
    """Odd-r rows to axial coordinates; areas, names and tags from the tables; blanks mean nothing."""
    data = parse_map(TINY, "tiny.txt")
    at = {(h["q"], h["r"]): h for h in data["hexes"]}
    assert [(h["q"], h["r"]) for h in data["hexes"]] == [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1),
                                                          (3, 1)]
    assert at[(1, 0)] == {"q": 1, "r": 0, "kind": "plain", "tags": ["neutral"]}
    assert at[(2, 0)]["area"] == at[(3, 0)]["area"] == "Town"
    assert at[(1, 1)] == {"q": 1, "r": 1, "kind": "castle", "name": "Keep", "tags": ["flag"]}
    assert at[(0, 0)] == {"q": 0, "r": 0, "kind": "sea"}
    assert data["title"] == "A tiny map" and "notes" not in data


# ----- rebirth board build ------------------------------------------------------------------------
def test_board_build_writes_and_checks(run_cli, tmp_path: Path) -> None:
    """Build by bundled name or by path; --check exits 0 when equal, 1 when missing or different, and
    never writes."""
    out = tmp_path / "ireland.json"
    code, _, err = run_cli("board", "build", "ireland", "-o", out, "--check")
    assert code == 1 and "missing" in err and not out.exists()
    code, stdout, _ = run_cli("board", "build", "ireland", "-o", out)
    assert code == 0 and "wrote" in stdout
    assert out.read_bytes() == (BOARDS / "ireland.json").read_bytes()
    assert run_cli("board", "build", MAPS / "ireland.txt", "-o", out, "--check")[0] == 0
    assert run_cli("board", "build", "ireland", "-o", out)[1].endswith("up to date\n")
    out.write_text(out.read_text().replace('"Blarney"', '"Blarny"'))
    stale = out.read_text()
    code, _, err = run_cli("board", "build", "ireland", "-o", out, "--check")
    assert code == 1 and "out of date" in err and out.read_text() == stale


def test_bundled_boards_are_up_to_date(run_cli) -> None:
    """`rebirth board build NAME -o boards/NAME.json --check` passes for the bundled maps."""
    for name in ("scotland", "ireland"):
        assert run_cli("board", "build", name, "-o", BOARDS / f"{name}.json", "--check")[0] == 0


def test_board_build_errors(run_cli, tmp_path: Path) -> None:
    """An unknown map name suggests the right one; a bad map file is an error at file:line:col, exit 1."""
    code, _, err = run_cli("board", "build", "scotlnd", "-o", tmp_path / "x.json")
    assert code == 1 and "did you mean 'scotland'?" in err
    bad = tmp_path / "bad.txt"
    bad.write_text(TINY.replace("1| . C . ~", "1| . C X ~"))
    code, _, err = run_cli("board", "build", bad, "-o", tmp_path / "x.json")
    assert code == 1 and f"{bad}:15:8: unknown [kinds] character 'X'" in err
    assert not (tmp_path / "x.json").exists()
    assert run_cli("board", "build", "scotland")[0] == 2  # -o is required


# ----- bad map files ------------------------------------------------------------------------------
@pytest.mark.parametrize(("old", "new", "expected"), [
    ("1| . C . ~", "1| . C X ~", "tiny.txt:15:8: unknown [kinds] character 'X'"),
    ("0|~ n . .", "0|~ n .", "tiny.txt:22:9: [tags] has no hex at (3, 0), which [kinds] draws as 's' (line 14, "
                             "column 9)"),
    ("0|~ . A A", "0|~ . A B", "tiny.txt:18:9: settlement hex (3, 0) is labelled 'B', which [areas] does not"),
    ("0|~ . A A", "0|~ . A .", "tiny.txt:18:9: settlement hex (3, 0) is labelled '.', which [areas] does not"),
    ("1| . a . ~", "1| A a . ~", "tiny.txt:19:4: 'A' labels a plain hex (0, 1), which belongs to no area"),
    ("1| . . n ~", "1| . . z ~", "tiny.txt:23:8: unknown [tags] character 'z' on a plain hex (2, 1)"),
    ("1| . . n ~", "1| . . n ~ .", "tiny.txt:23:12: [tags] has a hex at (4, 1) where [kinds] has none"),
    ("0|~ . s s", "0|~ . s  s", "tiny.txt:14:10: 's' is off the hex grid: row 0 has hexes at even columns"),
    ("0|~ . s s\n", "0|~ . s s\n0|~ . s s\n", "tiny.txt:15:1: row 0 is drawn twice in [kinds] (first on line 14)"),
    ("a  Keep  tags=flag", "a  Keep  tags=flag\nb  Tower", "tiny.txt:30:1: 'Tower' (letter 'b') labels no "
                                                         "landmark hex of the map"),
    ("a  Keep  tags=flag", "a  Keep  flag=yes", "tiny.txt:29:10: unknown landmark property 'flag'"),
    ("A  Town", "A  Town\nB  Town", "tiny.txt:27:4: 'Town' is named twice in [areas] (first on line 26)"),
    ("C  kind  castle      landmark", "C  kind  castle      keep", "tiny.txt:10:22: unknown role 'keep'"),
    ("n  tags  neutral", "s  kind  village", "tiny.txt:11:1: 's' is already a kind character (line 9)"),
    ("[labels]", "[label]", "tiny.txt:17:1: unknown section [label]"),
    ("name  = tiny\n", "", "tiny.txt:2:1: [board] has no `name = ...`"),
    ("# a tiny map for the error cases\n", "tiny\n", "tiny.txt:1:1: text before the first section"),
])
def test_bad_map_is_refused_at_file_line_col(old: str, new: str, expected: str) -> None:
    """Each broken map names the place of its problem."""
    assert old in TINY
    assert expected in _errors(TINY.replace(old, new, 1))


def test_non_contiguous_area_is_refused() -> None:
    """The two hexes of area A do not touch: the cut-off hex is named in [labels]."""
    text = TINY.replace("0|~ . s s", "0|~ s . s").replace("0|~ . A A", "0|~ A . A")
    assert "tiny.txt:18:9: area 'Town' is not contiguous: (3, 0) is cut off from (1, 0)" in _errors(text)


def test_every_problem_is_reported_at_once() -> None:
    """Two unknown characters in two pictures: both are reported, in file order."""
    text = TINY.replace("1| . C . ~", "1| . C X ~").replace("0|~ n . .", "0|~ z . .")
    msg = _errors(text)
    assert msg.index("tiny.txt:15:8: unknown [kinds]") < msg.index("tiny.txt:22:5: unknown [tags]")


def test_a_landmark_letter_labels_one_hex() -> None:
    """Two castles labelled `a`: the second is refused (a landmark is one hex with a unique name)."""
    text = TINY.replace("[kinds]\n0|~ . s s", "[kinds]\n0|~ C s s").replace("0|~ . A A", "0|~ a A A")
    assert ("tiny.txt:19:6: landmark 'Keep' (letter 'a') labels a second hex (1, 1); first on line 18, column 5"
            in _errors(text))


# ----- a new kind of hex is a legend line ---------------------------------------------------------
def test_new_kind_is_a_legend_line() -> None:
    """A lighthouse: one legend line, the hex redrawn, a name in [landmarks]; no Python change."""
    text = TINY.replace("n  tags  neutral", "n  tags  neutral\nL  kind  lighthouse  landmark")
    text = _put(_put(_put(text, "kinds", 1, 7, "L"), "labels", 1, 7, "b"), "tags", 1, 7, ".")
    text = text.replace("a  Keep  tags=flag", "a  Keep  tags=flag\nb  Beacon")
    at = {(h["q"], h["r"]): h for h in parse_map(text, "tiny.txt")["hexes"]}
    assert at[(3, 1)] == {"q": 3, "r": 1, "kind": "lighthouse", "name": "Beacon"}


def test_lighthouse_variant_from_the_scotland_map(tmp_path: Path) -> None:
    """The Scotland map with a lighthouse legend line and four redrawn sea hexes is the lighthouses
    variant's board (boards/variants/lighthouses.json), and `rebirth check` accepts it with that ruleset."""
    text = (MAPS / "scotland.txt").read_text(encoding="utf-8")
    text = text.replace("name  = scotland\n", "name  = scotland_lighthouses\n")
    text = text.replace("title = Scotland (reconstructed)\n",
                        "title = Scotland (reconstructed) with four lighthouses (variant)\n")
    legend = "+  kind  cathedral   landmark\n"
    text = text.replace(legend, legend + "L  kind  lighthouse  landmark\n")
    sites = {"u": ("Cape Wrath", 2, 5), "v": ("Kinnaird Head", 6, 6), "w": ("Bell Rock", 5, 14),
             "x": ("Mull of Galloway", -3, 18)}
    for letter, (name, q, r) in sites.items():
        x = 2 * (q + (r - (r & 1)) // 2) + (r & 1)  # axial -> text column after the `|` (odd-r rows)
        text = _put(_put(_put(text, "kinds", r, x, "L"), "labels", r, x, letter), "tags", r, x, ".")
        text += f"{letter}  {name}\n"
    data = parse_map(text, "lighthouses.txt")
    assert data == json.loads((BOARDS / "variants" / "lighthouses.json").read_text(encoding="utf-8"))
    out = tmp_path / "lighthouses.json"
    out.write_text(render_board(data), encoding="utf-8")
    assert beyond_bundled_findings(check(load_rules(RULES / "variants" / "lighthouses.rules"), load_board(out),
                                         str(out))) == []


# ----- game facts checked by `rebirth check RULES --board BOARD` --------------------------------------
def _ireland(tmp_path: Path, change: Callable[[dict, list], None]) -> str:
    """Ireland's board changed by `change(hexes by name, hexes)`, checked against Ireland's rules."""
    data = json.loads((BOARDS / "ireland.json").read_text(encoding="utf-8"))
    change({h.get("name"): h for h in data["hexes"]}, data["hexes"])
    validate_board_data(data)
    out = tmp_path / "b.json"
    out.write_text(render_board(data), encoding="utf-8")
    return "\n".join(d.render() for d in check(load_rules(RULES / "ireland.rules"), load_board(out), str(out)))


def test_S_U2_neutral_hex_count_comes_from_the_rules(run_cli, tmp_path: Path) -> None:
    """S-U2: one neutral mark taken off the Scotland map: `players 2: neutral 32 on neutral` lays 32."""
    text = (MAPS / "scotland.txt").read_text(encoding="utf-8")
    bad = tmp_path / "scotland.txt"
    bad.write_text(_put(text, "tags", 1, 13, "."), encoding="utf-8")  # the first `n`: (6, 1)
    out = tmp_path / "scotland.json"
    assert run_cli("board", "build", bad, "-o", out)[0] == 0
    code, _, err = run_cli("check", "scotland", "--board", out)
    assert code == 1 and f"with 2 players 32 neutral tiles go on `neutral` hexes, but {out} has 31" in err


def test_S_U2_neutral_hexes_take_a_tile(tmp_path: Path) -> None:
    """S-U2: a neutral tile occupies its hex, so a neutral mark on a sea hex is refused."""
    def change(named: dict, hexes: list) -> None:
        next(h for h in hexes if "neutral" in h.get("tags", []))["tags"].remove("neutral")
        hexes[0]["tags"] = ["neutral"]

    text = _ireland(tmp_path, change)
    assert ("$.hexes[0].tags: 'neutral' on a sea hex (8,0): with 2 players a neutral tile goes there, but no rule "
            "places a tile on sea hexes") in text


def test_I_R1_every_ability_is_printed_on_a_tower(tmp_path: Path) -> None:
    """I-R1: an ability no tower carries can never be used; one on a castle is never used either."""
    def change(named: dict, hexes: list) -> None:
        named["Hill of Tara"]["ability"] = "score_3"

    assert "ability `score_13` is printed on no landmark of" in _ireland(tmp_path, change)

    def on_castle(named: dict, hexes: list) -> None:
        named["Kilkenny"]["ability"] = "score_3"

    assert ("castle 'Kilkenny' carries ability 'score_3', but no rule uses the abilities of castle hexes "
            "(only those of tower)") in _ireland(tmp_path, on_castle)


def test_S_C3_I_E2_clover_is_on_one_castle(tmp_path: Path) -> None:
    """S-C3, I-E2: `castle with clover` names one castle; a second clover castle makes it ambiguous."""
    def change(named: dict, hexes: list) -> None:
        named["Kilkenny"]["tags"] = ["clover"]

    assert "`castle with clover` names one castle, but" in _ireland(tmp_path, change)
    assert "has 2: Kilkenny, Blarney" in _ireland(tmp_path, change)
