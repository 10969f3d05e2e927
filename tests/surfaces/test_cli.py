"""The `rebirth` command: exit codes, error formats, golden outputs, and never a traceback."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import BOARDS, ROOT, RULES, beyond_bundled_findings

EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
GOLDEN = ROOT / "tests" / "golden"


def test_check_clean_exits_0(run_cli) -> None:
    """The bundled rules and board are consistent."""
    code, out, err = run_cli("check", RULES / "scotland.rules", "--board", BOARDS / "scotland.json")
    assert code == 0, err
    assert "ok" in out


def test_check_typo_gets_file_line_col_and_did_you_mean(run_cli, tmp_path: Path) -> None:
    """A typo'd name: file:line:col, did you mean, exit 1, no traceback."""
    text = (RULES / "scotland.rules").read_text().replace("majority castle as castles", "majority castel as castles")
    f = tmp_path / "typo.rules"
    f.write_text(text)
    code, out, err = run_cli("check", f, "--board", BOARDS / "scotland.json")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "castel" in ln)
    col = text.splitlines()[line - 1].index("castel") + 1  # the word itself, underlined
    assert code == 1
    assert f"{f}:{line}:{col}: unknown landmark kind `castel`" in err
    assert " " * (col - 1 + 4) + "^~~~~~\n" in err
    assert "did you mean `castle`?" in err
    assert "Traceback" not in err


def test_check_syntax_error_has_caret(run_cli, tmp_path: Path) -> None:
    """A syntax error prints the line and a caret."""
    f = tmp_path / "s.rules"
    f.write_text('ruleset s\nplayers 2 to\n')
    code, _, err = run_cli("check", f)
    assert code == 1
    assert f"{f}:3:1: unexpected end of file" in err or f"{f}:2:" in err
    assert "^" in err


def test_check_broken_board_names_json_path(run_cli, tmp_path: Path) -> None:
    """A broken board is reported by its JSON path."""
    data = json.loads((BOARDS / "scotland.json").read_text())
    data["hexes"][5]["kind"] = "forest"
    del data["hexes"][7]["q"]
    f = tmp_path / "b.json"
    f.write_text(json.dumps(data))
    code, _, err = run_cli("check", RULES / "scotland.rules", "--board", f)
    assert code == 1
    assert "$.hexes[7]: missing required field 'q'" in err


def test_check_unknown_kind_on_board(run_cli, tmp_path: Path) -> None:
    """A board kind the rules do not declare."""
    data = json.loads((BOARDS / "scotland.json").read_text())
    data["hexes"][5]["kind"] = "forest"
    f = tmp_path / "b.json"
    f.write_text(json.dumps(data))
    code, _, err = run_cli("check", RULES / "scotland.rules", "--board", f)
    assert code == 1 and "$.hexes[5].kind: hex kind 'forest' is not declared by the rules" in err


def test_usage_error_exits_2(run_cli) -> None:
    """Bad arguments are a usage error."""
    code, _, err = run_cli("check")
    assert code == 2 and "usage" in err


def test_missing_file_is_a_message_not_a_traceback(run_cli) -> None:
    """A missing file: exit 1 with a message."""
    code, _, err = run_cli("eval", "no/such/game.json")
    assert code == 1 and "cannot read" in err and "Traceback" not in err


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.stem for e in EXAMPLES])
def test_eval_json_golden(run_cli, example: Path) -> None:
    """`rebirth eval --json` on each bundled example equals its golden file (regression, not reference)."""
    code, out, err = run_cli("eval", example, "--json")
    assert code == 0, err
    golden = GOLDEN / f"{example.stem}.eval.json"
    # never written here: `python tools/update_goldens.py` rewrites them and prints the diff to review. Each
    # file is paired with hand-computed assertions on the same game in tests/rules/test_golden_pairs.py.
    assert json.loads(out) == json.loads(golden.read_text()), "intended? python tools/update_goldens.py"


def test_eval_json_shape(run_cli) -> None:
    """The JSON object has the documented keys."""
    code, out, _ = run_cli("eval", ROOT / "examples" / "scotland-3p.json", "--json")
    data = json.loads(out)
    assert set(data) >= {"players", "castles", "winners", "finished"}
    assert set(data["players"][0]) >= {"name", "score", "breakdown"}
    assert set(data["players"][0]["breakdown"]) >= {"farms", "harbours", "areas", "incomplete_areas", "castles",
                                                    "missions"}


def test_eval_explain_cites_rule_ids(run_cli) -> None:
    """--explain lists events with their rule ids."""
    code, out, _ = run_cli("eval", ROOT / "examples" / "scenario-120.json", "--explain")
    assert code == 0
    assert "(S-E2)" in out and "120" in out


def test_eval_illegal_move_exits_1_with_rule_and_index(run_cli, tmp_path: Path) -> None:
    """An illegal move stops the replay: its index and rule id, exit 1."""
    rec = json.loads((ROOT / "examples" / "scotland-3p.json").read_text())  # names the bundled game
    rec["moves"][5]["hex"] = rec["moves"][2]["hex"]  # an occupied hex
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(rec))
    code, out, err = run_cli("eval", f)
    assert code == 1
    assert "move 5:" in err and "(S-P1)" in err and "nothing after this move was applied" in err


def test_moves_lists_legal_hexes_with_points(run_cli) -> None:
    """`rebirth moves` on an unfinished game: the hand tile's legal hexes, best first."""
    code, out, err = run_cli("moves", ROOT / "examples" / "unfinished.json", "--json")
    assert code == 0, err
    data = json.loads(out)
    pts = [m["points"] for m in data["moves"]]
    assert pts == sorted(pts, reverse=True) and data["moves"]


def test_python_dash_m_is_the_same_command() -> None:
    """`python -m rebirth_dsl` runs the CLI."""
    proc = subprocess.run([sys.executable, "-m", "rebirth_dsl", "check", str(RULES / "scotland.rules")],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("rules", ["scotland.rules", "ireland.rules", "variants/lighthouses.rules"])
def test_rules_describes_every_statement_with_its_ids(run_cli, rules: str) -> None:
    """`rebirth rules` prints the ruleset in English, citing rule ids."""
    code, out, err = run_cli("rules", RULES / rules)
    assert code == 0, err
    assert "[S-F1]" in out and "A food goes on a free food or plain hex" in out
    if rules == "ireland.rules":
        assert "size 4 with 2 players pays 17 / 8 [I-A1]" in out


def test_draw_writes_svg(run_cli, tmp_path: Path) -> None:
    """`rebirth draw BOARD -o file.svg` writes an SVG file with the usual file mode."""
    out = tmp_path / "s.svg"
    code, _, err = run_cli("draw", BOARDS / "scotland.json", "-o", out)
    assert code == 0, err
    assert out.read_text().startswith("<svg") or "<svg" in out.read_text()[:200]
    assert out.stat().st_mode & 0o044


def test_check_json_is_lsp_shaped_and_a_cause_on_many_hexes_is_one_line(run_cli, tmp_path: Path) -> None:
    """`check --json` prints LSP-shaped diagnostics; a small ruleset against the Scotland board prints a
    handful of diagnostics (one per cause, with a count), not one per hex."""
    f = tmp_path / "small.rules"
    f.write_text('ruleset small "Small"\nplayers 2 to 4\nhex plain, food\ntiles { food x3 }\nplace food on food\n'
                 'one tile per hex\nturns clockwise\nwhen no hex is legal: pass\n')
    code, out, err = run_cli("check", f, "--board", "scotland")
    assert code == 1 and len(err.splitlines()) <= 6, err
    assert "(the same on 167 places: $.hexes[0].kind" in err
    code, out, _ = run_cli("check", f, "--board", "scotland", "--json")
    diags = json.loads(out)
    assert code == 1 and 1 <= len(diags) <= 5
    for d in diags:
        assert set(d) >= {"file", "range", "severity", "code", "message", "source"}
        assert d["range"]["start"].keys() == {"line", "character"} and d["severity"] in (1, 2)
    typo = tmp_path / "typo.rules"
    typo.write_text('ruleset t extends "' + str(RULES / "scotland.rules") + '"\nplace food on food, enrgy\n')
    code, out, _ = run_cli("check", typo, "--json")
    (d,) = beyond_bundled_findings(json.loads(out))
    assert d["range"] == {"start": {"line": 1, "character": 20}, "end": {"line": 1, "character": 25}}
    assert d["code"] == "names" and d["hint"] == "did you mean `energy`?"


# ----- internal errors that were the input's or the machine's (finding 8 of the second hardening round) ----
@pytest.mark.parametrize("agents", [None, "random", "random,greedy"])
def test_resume_of_a_record_whose_players_is_a_number_names_the_json_path(run_cli, tmp_path: Path,
                                                                          agents: str | None) -> None:
    """`"players": 1` in a saved game was a TypeError (exit 70) with --agents: now `$.players`, exit 1."""
    rec = json.loads((ROOT / "examples" / "unfinished.json").read_text())
    rec["players"] = 1
    f = tmp_path / "one.json"
    f.write_text(json.dumps(rec))
    code, _, err = run_cli("play", "--resume", f, *(["--agents", agents] if agents else []), "-o", tmp_path / "o.json")
    assert code == 1, err
    assert f"{f}: $.players: expected array, got integer" in err
    assert "internal error" not in err and not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("row", ["9" * 5000, "1001", "0" * 6000 + "1001"])
def test_a_map_row_past_the_coordinate_limit_is_refused_at_its_line(run_cli, tmp_path: Path, row: str) -> None:
    """A row number of over 4,300 digits was a ValueError from int() (exit 70): now the map's line and column."""
    lines = (BOARDS / "maps" / "scotland.txt").read_text(encoding="utf-8").splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.lstrip()[:1].isdigit() and "|" in ln)
    lines[i] = row + lines[i][lines[i].index("|"):]
    f = tmp_path / "m.txt"
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run_cli("board", "build", f, "-o", tmp_path / "b.json")
    assert code == 1, err
    assert f"{f}:{i + 1}:1: row " in err and "is past the limit: rows are numbered 0 to 1000" in err
    assert len(err.splitlines()[0]) < 200 and not (tmp_path / "b.json").exists()


def test_a_map_with_leading_zeros_and_crlf_still_builds(run_cli, tmp_path: Path) -> None:
    """The row limit counts the number, not its digits; a map saved with CRLF line ends builds the same board."""
    text = (BOARDS / "maps" / "scotland.txt").read_text(encoding="utf-8")
    f = tmp_path / "m.txt"
    f.write_bytes(text.replace("\n 0|", "\n00000|").replace("\n", "\r\n").encode("utf-8"))
    code, _, err = run_cli("board", "build", f, "-o", tmp_path / "b.json")
    assert code == 0, err
    assert (tmp_path / "b.json").read_text(encoding="utf-8") == (BOARDS / "scotland.json").read_text(encoding="utf-8")


_NO_FDS = """
import os, resource, sys
from rebirth_dsl.cli import main
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
held = []
try:
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
if sys.argv[1] == "later":  # one descriptor free: the parsers are built, the command runs out later or not
    os.close(held.pop())
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("when", ["start", "later"])
@pytest.mark.parametrize("command", [["check", "scotland"], ["draw", "scotland"], ["list"],
                                     ["play", "--players", "2", "--agents", "random"]])
def test_running_out_of_file_descriptors_is_a_message(tmp_path: Path, command: list[str], when: str) -> None:
    """No free file descriptor was an OSError from an import (exit 70): now one line saying so, exit 1."""
    proc = subprocess.run([sys.executable, "-c", _NO_FDS, when, *command], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "REBIRTH_CACHE": str(tmp_path / "cache"),
                                             "PYTHONPATH": str(ROOT)}, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    if proc.returncode == 1:
        assert "Too many open files" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.parametrize("args", [["check", "{long}"], ["eval", "{long}"], ["draw", "scotland", "-o", "{long}/a.svg"],
                                  ["play", "--rules", "{long}"]])
def test_a_file_name_too_long_is_a_message(run_cli, args: list[str]) -> None:
    """Path.is_file() lets ENAMETOOLONG through (an OSError, exit 70): now the name and the reason, exit 1."""
    code, _, err = run_cli(*[a.format(long="x" * 5000) for a in args])
    assert code == 1, err
    assert "File name too long" in err and "internal error" not in err


@pytest.mark.parametrize("args", [["compare", "scotland", "scotland", "--games", "1", "--players", "-" + "9" * 20],
                                  ["simulate", "--games", "1", "--players", "9" * 20],
                                  ["simulate", "--games", "-" + "9" * 20], ["hint", "unfinished", "--top", "9" * 20]])
def test_counts_past_any_size_are_usage_errors(run_cli, args: list[str]) -> None:
    """A count too big for a list (compare --players -10**20 made `[agent] * n` raise OverflowError, exit 70)
    is refused by the argument's type: exit 2, naming the option."""
    code, _, err = run_cli(*args)
    assert code == 2, err
    assert "out of range (at most 1,000,000,000 either way)" in err and "internal error" not in err


def test_a_number_written_with_thousands_of_leading_zeros_is_refused_at_its_place(run_cli, tmp_path: Path) -> None:
    """`card "Castle lord" 000...05` (5,001 digits) passed the number limit (its value is 5) and then made int()
    raise in the lowering (VisitError, exit 70): now refused at its place; a few leading zeros still read."""
    text = (RULES / "scotland.rules").read_text(encoding="utf-8")
    f = tmp_path / "z.rules"
    f.write_text(text.replace('card "Castle lord" 5', 'card "Castle lord" ' + "0" * 5000 + "5"), encoding="utf-8")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if 'card "Castle lord"' in ln)
    code, _, err = run_cli("check", f)
    assert code == 1, err
    assert f"{f}:{line}:22: the number 00000000... (5001 digits) is too big" in err
    f.write_text(text.replace('card "Castle lord" 5', 'card "Castle lord" 0005'), encoding="utf-8")
    code, _, err = run_cli("check", f)
    assert code == 0, err


def test_a_map_line_of_thousands_of_stray_characters_is_a_short_report(run_cli, tmp_path: Path) -> None:
    """30,000 characters off the hex grid on one line were 30,000 problems, each printed with the 60 KB line
    (the fuzz's 30 s time bound hit): now the first 50, each line cut after its caret, then how many more."""
    text = (BOARDS / "maps" / "scotland.txt").read_text(encoding="utf-8")
    f = tmp_path / "m.txt"
    f.write_text(text.replace(" 7| ~ e s ~ . C ", " 7| ~ e s ~ . C " + "a" * 60_000, 1), encoding="utf-8")
    code, _, err = run_cli("board", "build", f, "-o", tmp_path / "b.json")
    assert code == 1
    assert err.count("is off the hex grid") == 50 and f"{f}: and 29,950 more problems: fix these first" in err
    assert len(err) < 50 * 600  # before: 30,000 times the 60 KB line


@pytest.mark.parametrize("args", [["play", "--resume", "{rec}"], ["play", "--players", "2"], ["draw", "scotland"],
                                  ["board", "build", "scotland"]])
def test_an_empty_output_name_is_a_usage_error(run_cli, tmp_path: Path, args: list[str]) -> None:
    """`-o ''` was taken as no -o: `play --resume rec.json -o ''` wrote the game back over rec.json."""
    rec = tmp_path / "rec.json"
    shutil.copy(ROOT / "examples" / "unfinished.json", rec)
    before = rec.read_bytes()
    code, out, err = run_cli(*[a.format(rec=rec) for a in args], "-o", "")
    assert code == 2, err
    assert "argument -o/--output: an empty file name" in err and not out
    assert rec.read_bytes() == before


@pytest.mark.parametrize(("rules", "card", "message"), [
    ("scotland", "Nope", "no card 'Nope' in the ruleset's decks"),
    ("ireland", "Castle lord", "no card 'Castle lord' in the ruleset's decks; did you mean 'Castle keeper'?")])
def test_a_scenario_holding_an_unknown_card_names_its_json_path(run_cli, tmp_path: Path, rules: str, card: str,
                                                                message: str) -> None:
    """Held cards are scored by name at the end: one the ruleset has not (a scenario moved to another ruleset)
    was a KeyError, exit 70; now the card's JSON path, exit 1."""
    rec = json.loads((ROOT / "examples" / "scenario-120.json").read_text(encoding="utf-8"))
    rec.update(rules=rules, board=rules)
    rec["setup"]["missions_held"] = {"Ann": ["Cathedral gift", card]} if rules == "scotland" else {"Ann": [card]}
    f = tmp_path / "sc.json"
    f.write_text(json.dumps(rec), encoding="utf-8")
    code, _, err = run_cli("eval", f)
    assert code == 1, err
    where = "[1]" if rules == "scotland" else "[0]"
    assert f"{f}: $.setup.missions_held.Ann{where}: {message}" in err


@pytest.mark.parametrize("base", ["\x00.", "fifo", "."])
@pytest.mark.parametrize("command", [["play", "--players", "2", "--rules"], ["compare", "scotland"], ["check"]])
def test_a_ruleset_extending_a_nul_name_a_fifo_or_a_folder_is_refused_at_once(tmp_path: Path, base: str,
                                                                              command: list[str]) -> None:
    """Picking the default board reads the `extends` chain from the header lines: a NUL in the name was a
    ValueError (exit 70) and a FIFO was opened and waited on forever; now each is a message, exit 1."""
    from cli_helpers import rebirth

    os.mkfifo(tmp_path / "fifo")
    f = tmp_path / "w.rules"
    f.write_text(f'ruleset w "W" extends "{base}"\n', encoding="utf-8")
    code, _, err = rebirth(*command, f, limit=30)
    assert code == 1, err
    assert "internal error" not in err
    assert str(tmp_path) in err  # the rules file, or the file it extends
