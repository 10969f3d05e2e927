"""Records that carry analysis: comments, metadata and variations survive replay and the schema checks
them with their JSON path; `eval --explain` shows them, each variation played; annotate_file never writes
over its input unless asked."""

from __future__ import annotations

import json

import pytest
from cli_helpers import rebirth
from conftest import ROOT

from rebirth_dsl.errors import RebirthError
from rebirth_dsl.records.annotate import add_variation, annotate, annotate_file, read_annotations, set_meta
from rebirth_dsl.records.record import load_record, replay


def _opening() -> dict:
    """The first four moves of the bundled three-player game: Ann settlement:2 (3,4), Bob food (3,6), ..."""
    data = json.loads((ROOT / "examples" / "scotland-3p.json").read_text())
    data["moves"] = data["moves"][:4]
    return data


def _annotated() -> dict:
    d = annotate(_opening(), None, "A quiet opening.")
    d = annotate(d, 0, "Ullapool first: a harbour and an area of one.")
    # Instead of move 0: Ann's settlement:2 on (7,1), in Thurso (3 hexes: not complete), no harbour tag:
    # no points (S-H1 needs a harbour, S-A3 a complete area). Then Bob's food on (7,2), a food hex with no
    # tile of his next to it: a group of 1, farms +1 (S-F1). Instead of that, food on (10,6): alone too, +1.
    line = [{"player": "Ann", "tile": "settlement:2", "hex": [7, 1], "comment": "Thurso instead"},
            {"player": "Bob", "tile": "food", "hex": [7, 2],
             "variations": [[{"player": "Bob", "tile": "food", "hex": [10, 6]}]]}]
    d = add_variation(d, 0, line)
    d = add_variation(d, 0, [{"player": "Bob", "tile": "food", "hex": [7, 2]}])  # not Bob's turn (S-T1)
    return set_meta(d, event="Club night", date="2026-11-30", names={"Ann": "Ann Smith"}, tags=["opening"])


def test_comments_and_variations_survive_replay(tmp_path):
    data = _annotated()
    loaded = load_record(tmp_path / "g.json", data=data)
    r = replay(loaded)
    assert r.error is None
    rec = loaded.record
    assert rec.comment == "A quiet opening." and rec.meta["event"] == "Club night"
    assert [m.data() for m in rec.moves] == data["moves"]  # written back as read: a resumed game keeps them
    assert rec.moves[0].variations[0][1].variations[0][0].hex == (10, 6)


def test_variations_are_played_from_the_move_before():
    r = replay(load_record(ROOT / "examples" / "g.json", data=_annotated()))
    notes = read_annotations(r)
    assert notes["comments"] == [{"move": 0, "comment": "Ullapool first: a harbour and an area of one."}]
    first, second = notes["variations"][0]["lines"]
    assert [m["points"] for m in first["moves"]] == [{}, {"Bob": 1}]
    assert first["moves"][1]["variations"][0]["moves"][0]["points"] == {"Bob": 1}
    assert first["scores"] == {"Ann": 0, "Bob": 1, "Cat": 0}
    assert second["error"]["rule"] == "S-T1" and "it is Ann's turn, not Bob's" in second["error"]["message"]


def test_eval_explain_shows_them(tmp_path):
    path = tmp_path / "g.json"
    path.write_text(json.dumps(_annotated()))
    code, out, err = rebirth("eval", path, "--explain", limit=60)
    assert code == 0, err
    assert "event: Club night; date: 2026-11-30; names: Ann = Ann Smith; tags: opening" in out
    assert "  A quiet opening." in out
    assert "[  move 0] note Ullapool first: a harbour and an area of one." in out
    assert "Ann settlement:2 (7,1): no points  -- Thurso instead" in out
    assert "Bob food (7,2): Bob +1" in out and "instead, variation 1:" in out
    assert "Bob food (7,2): refused: it is Ann's turn, not Bob's (S-T1)" in out
    # the note comes after the move's own events and before the next move's
    assert out.index("Ullapool (size 1) complete") < out.index("note Ullapool") < out.index("Bob food at (3,6)")
    code, js, _ = rebirth("eval", path, "--explain", "--json", limit=60)
    assert json.loads(js)["comment"] == "A quiet opening."
    code, cut, _ = rebirth("eval", path, "--explain", "--at", "0", limit=60)
    assert "note Ullapool" not in cut and "variation" not in cut  # as of move 0, move 0 is not played yet


@pytest.mark.parametrize(("change", "path", "words"), [
    (lambda d: d["meta"].__setitem__("date", "March 3"), "$.meta.date", "pattern"),
    (lambda d: d["moves"][0]["variations"][0][1].__setitem__("hex", "4,12"), "$.moves[0].variations[0][1].hex",
     "expected array, got string"),
    (lambda d: d["moves"][2].__setitem__("comment", 7), "$.moves[2].comment", "expected string, got integer"),
    (lambda d: d["meta"].__setitem__("venue", "pub"), "$.meta", "unknown field 'venue'"),
])
def test_the_schema_checks_them_with_the_json_path(tmp_path, change, path, words):
    data = _annotated()
    change(data)
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(data))
    code, _, err = rebirth("eval", f, limit=60)
    assert code == 1
    assert f"{path}: " in err and words in err


def test_annotate_file_writes_elsewhere_unless_asked(tmp_path):
    src = tmp_path / "game.json"
    src.write_text(json.dumps(_opening()))
    before = src.read_bytes()
    with pytest.raises(RebirthError, match="only when asked"):
        annotate_file(src, {1: "?! gives the castle away"})
    with pytest.raises(RebirthError):
        annotate_file(src, {1: "x"}, output=src)  # the input, named as the output: refused
    out = annotate_file(src, [(1, "?! gives the castle away"), (None, "reviewed")], tmp_path / "rev.json",
                        meta={"annotator": "review"})
    assert src.read_bytes() == before
    rev = json.loads(out.read_text())
    assert rev["moves"][1]["comment"] == "?! gives the castle away" and rev["comment"] == "reviewed"
    assert rev["meta"] == {"annotator": "review"}
    annotate_file(out, {1: "second thought"}, in_place=True)
    assert json.loads(out.read_text())["moves"][1]["comment"] == "?! gives the castle away\nsecond thought"
    with pytest.raises(RebirthError, match="the record has 4 moves"):
        annotate_file(src, {9: "x"}, tmp_path / "r2.json")
    assert not (tmp_path / "r2.json").exists()
