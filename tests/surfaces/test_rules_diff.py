"""`rebirth rules VARIANT --diff BASE` reads like a changelog: declarations by name, only the changed lines of
a changed block, and the boards' differences (hexes, areas, landmarks) when the two play on different boards.
Every expected line is read off the rules and board files named in its comment."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT

SCOTLAND = ROOT / "rules" / "scotland.rules"


def _diff(run_cli, *args: str | Path) -> list[str]:
    code, out, err = run_cli("rules", *map(str, args))
    assert code == 0, err
    return out.rstrip("\n").split("\n")


def _edited(tmp_path: Path, name: str, *edits: tuple[str, str]) -> Path:
    """A copy of the Scotland rules with each (old, new) text replaced once."""
    text = SCOTLAND.read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_declaration_is_named(run_cli) -> None:
    """lighthouses.rules: `landmark lighthouse  # V-L1` reads as the kind it declares, not `Declare`."""
    out = _diff(run_cli, "variants/lighthouses", "--diff", "scotland")
    assert "+ declares landmark kind lighthouse [V-L1]" in out
    assert not any("Declare" in line for line in out)


def test_a_declaration_removed_and_a_tag_s_hexes_changed(run_cli, tmp_path: Path) -> None:
    """Without `tag neutral` and with harbours allowed on plain hexes too: each said by name."""
    v = _edited(tmp_path, "v.rules", ("tag neutral                     ", "                                "),
                ("tag harbour only on settlement", "tag harbour only on settlement, plain"))
    out = _diff(run_cli, v, "--diff", "scotland")
    assert "- no longer declares tag neutral [S-U2]" in out
    i = out.index("~ changes: tag harbour (only on settlement hexes) [S-C3]")
    assert out[i + 1] == "  to: tag harbour (only on settlement, plain hexes) [S-C3]"


def test_a_changed_block_prints_only_its_changed_line(run_cli) -> None:
    """korean-castles.rules changes only `final tie: owner keeps` to `placer takes` (S-K5) in the castle
    majority: the block's line once, then that item before and after, and none of the unchanged items."""
    out = _diff(run_cli, "variants/korean-castles", "--diff", "scotland")
    assert out == [
        "Rebirth: Scotland, Korean castle tie against Rebirth: Scotland:",
        "~ changes: A castle is held by majority over its neighbouring hexes:",
        "    was: still tied: the holder keeps it [S-K5]",
        "    now: still tied: the placer takes it [S-K5]",
    ]


def test_one_payout_changed_in_an_area_block(run_cli, tmp_path: Path) -> None:
    """`pay size 2: 5, 3` -> `6, 3` (S-A3): that line alone; sizes 1 and 3, ranking and ties are not shown."""
    v = _edited(tmp_path, "v.rules", ("pay size 2: 5, 3 ", "pay size 2: 6, 3 "))
    out = _diff(run_cli, v, "--diff", "scotland")
    assert out[1:] == [
        "~ changes: A settlement area is scored when its last hex is filled (areas):",
        "    was: size 2 pays 5 / 3 [S-A3]",
        "    now: size 2 pays 6 / 3 [S-A3]",
    ]


def test_cards_are_matched_by_name(run_cli, tmp_path: Path) -> None:
    """"Castle lord" 5 -> 6, "Mayor" dropped, "Sea lord" added: three lines, each about its own card, and no
    line about the 14 cards that stay the same."""
    v = _edited(tmp_path, "v.rules", ('card "Castle lord" 5:', 'card "Castle lord" 6:'),
                ('  card "Mayor" 5: count(won(me)) >= players(2: 9, 3: 7, 4: 5)',
                 '  card "Sea lord" 4: count(near(tiles(me), sea)) >= 3'))
    out = _diff(run_cli, v, "--diff", "scotland")
    items = [line.strip() for line in out if line.startswith("    ")]
    assert items == [
        'was: "Castle lord", 5: count(owned(you, castle)) at least 1 and most(count(owned(you, castle)))',
        'now: "Castle lord", 6: count(owned(you, castle)) at least 1 and most(count(owned(you, castle)))',
        'drops: "Mayor", 5: count(won(you)) at least 9 with 2 players, 7 with 3, 5 with 4',
        'adds: "Sea lord", 4: count(near(tiles(you), sea)) at least 3',
    ]


def test_a_variant_on_its_own_board_shows_the_boards_differences(run_cli) -> None:
    """lighthouses.json is scotland.json with four sea hexes made lighthouses (read off the two files):
    those four under landmarks, and no other hex, area or landmark."""
    out = _diff(run_cli, "variants/lighthouses", "--diff", "scotland")
    i = out.index("Board scotland_lighthouses against scotland (223 hexes, as before):")
    assert out[i + 1:] == [
        "  landmarks:",
        '    + lighthouse "Bell Rock" at (5,14), on a sea hex before',
        '    + lighthouse "Cape Wrath" at (2,5), on a sea hex before',
        '    + lighthouse "Kinnaird Head" at (6,6), on a sea hex before',
        '    + lighthouse "Mull of Galloway" at (-3,18), on a sea hex before',
    ]


def test_the_same_board_is_not_diffed(run_cli) -> None:
    """korean-castles plays on Scotland's board (its base's): no board section."""
    assert not any(line.startswith("Board") for line in _diff(run_cli, "variants/korean-castles", "--diff", "scotland"))


def _board(tmp_path: Path, source: Path, name: str, edit) -> Path:
    data = json.loads(source.read_text(encoding="utf-8"))
    edit(data["hexes"])
    data["name"] = name
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _hex(hexes: list[dict], q: int, r: int) -> dict:
    return next(h for h in hexes if (h["q"], h["r"]) == (q, r))


def test_hexes_and_areas_of_two_boards(run_cli, tmp_path: Path) -> None:
    """areas.json edited: (4,2) sea removed, (0,1) plain -> food, (2,2) plain -> a settlement hex of Lewis
    (3 -> 4 hexes), Eigg's harbour tag removed, Skye renamed Raasay, a castle Stirling added at (5,0)."""
    def edit(hexes: list[dict]) -> None:
        hexes.remove(_hex(hexes, 4, 2))
        _hex(hexes, 0, 1)["kind"] = "food"
        _hex(hexes, 2, 2).update(kind="settlement", area="Lewis")
        _hex(hexes, 0, 2)["tags"] = []
        for h in hexes:
            if h.get("area") == "Skye":
                h["area"] = "Raasay"
        hexes.append({"q": 5, "r": 0, "kind": "castle", "name": "Stirling"})

    new = _board(tmp_path, ROOT / "rules" / "positions" / "scotland" / "areas.json", "areas2", edit)
    out = _diff(run_cli, "scotland", "--diff", "scotland", "--base-board", ROOT / "rules" / "positions" / "scotland" / "areas.json",
                "--board", new)
    assert out[:2] == ["Rebirth: Scotland against Rebirth: Scotland:", "  no difference in any statement"]
    assert out[3:] == [
        "Board areas2 against areas (15 hexes, as before):",  # 15 - 1 removed + 1 added
        "  hexes:",
        "    ~ (0,1) plain -> food",
        "    ~ (0,2) tags - harbour",
        "    ~ (2,2) plain -> settlement",
        "    - (4,2) sea",
        "  areas:",
        "    ~ Lewis: 3 -> 4 hexes (+ (2,2))",
        "    + Raasay: 2 hexes",
        "    - Skye: 2 hexes",
        "  landmarks:",
        '    + castle "Stirling" at (5,0), a new hex',
    ]


def test_landmarks_moved_and_retagged(run_cli, tmp_path: Path) -> None:
    """castles.json edited: Stirling moved from (3,1) to (4,1) (which was plain), the clover moved from
    Edinburgh to Stirling."""
    def edit(hexes: list[dict]) -> None:
        _hex(hexes, 3, 1).update(kind="plain", name=None)
        _hex(hexes, 3, 1).pop("name")
        _hex(hexes, 4, 1).update(kind="castle", name="Stirling", tags=["clover"])
        _hex(hexes, 1, 1)["tags"] = []

    new = _board(tmp_path, ROOT / "rules" / "positions" / "scotland" / "castles.json", "castles2", edit)
    out = _diff(run_cli, "scotland", "--diff", "scotland", "--base-board", ROOT / "rules" / "positions" / "scotland" / "castles.json",
                "--board", new)
    assert out[3:] == [
        "Board castles2 against castles (13 hexes, as before):",
        "  landmarks:",
        '    ~ castle "Edinburgh": tags - clover',
        '    ~ castle "Stirling": at (3,1) -> (4,1); tags + clover',
    ]


def test_two_board_files_with_the_same_hexes(run_cli, tmp_path: Path) -> None:
    """A copy of a board under another name: diffed, and found the same."""
    copy = _board(tmp_path, ROOT / "rules" / "positions" / "scotland" / "castles.json", "copy", lambda hexes: None)
    out = _diff(run_cli, "scotland", "--diff", "scotland", "--base-board", ROOT / "rules" / "positions" / "scotland" / "castles.json",
                "--board", copy)
    assert out[3:] == ["Board copy against castles (13 hexes, as before):",
                       "  no difference in hexes, areas or landmarks"]


def test_a_board_without_diff_is_a_usage_error(run_cli) -> None:
    """`--board` names a side of the diff: without --diff it would be ignored, so it is refused (exit 2)."""
    code, _, err = run_cli("rules", "scotland", "--board", "ireland")
    assert code == 2 and "--diff" in err
