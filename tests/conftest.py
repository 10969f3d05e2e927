"""Shared fixtures: paths to the bundled rules and boards, and a helper to run the CLI in-process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import Phase, settings

# The tests live in one folder per layer (lang/, rules/, engines/, surfaces/, robustness/); they reach the
# repository and the shared data folders (tests/positions, rules/positions/scotland, ...) through these constants, never
# through their own __file__, so a test file may move between folders unchanged. `from conftest import ...`
# and the helper modules (cli_helpers, web_helpers, oracle) are found because pyproject.toml puts tests/ on
# sys.path (pytest's `pythonpath`); a layer folder must therefore not hold a conftest.py of its own.
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
RULES = ROOT / "rules"
BOARDS = ROOT / "boards"

# The bundled games' own findings (issue 22): mission cards no player can meet with 4 players, by the bounds
# of check/reach.py (tests/lang/test_reach.py holds each). They are the game data's to mend, not the checker's:
# a bundled ruleset must check clean but for exactly these warnings. None is left: Scotland's Town builder and
# Ireland's Town council, Harvest and Chieftain of Ireland were mended when the decks were re-tuned per player
# count (issue 23; test_reach.py keeps Ireland's old deck as the checker's real case).
BUNDLED_FINDINGS: frozenset[str] = frozenset()


def beyond_bundled_findings(problems: list) -> list:
    """The problems of a bundled ruleset other than its known findings (BUNDLED_FINDINGS): diagnostics,
    the editor's problems or LSP diagnostics, or their JSON (`check --json`)."""
    def known(d) -> bool:
        code, message = (d.get("code"), d.get("message", "")) if isinstance(d, dict) else (d.code, d.message)
        card = message.split('"')[1] if message.count('"') >= 2 else ""
        return code == "mission-never-met" and card in BUNDLED_FINDINGS and "with 4 players:" in message

    return [d for d in problems if not known(d)]


def applied(text: str, fix) -> str:
    """A text with an errors.Fix's edit made, as an editor applies the code action (1-based span; an empty
    span inserts at its start)."""
    lines = text.split("\n")

    def offset(line: int, col: int) -> int:
        return sum(len(x) + 1 for x in lines[:line - 1]) + col - 1

    sp = fix.span
    start = offset(sp.line, sp.col)
    end = offset(sp.end_line, sp.end_col) if sp.end_line else start
    return text[:start] + fix.text + text[end:]


# CI can ask for more examples: HYPOTHESIS_MAX_EXAMPLES=1000 pytest
settings.register_profile("env", max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "60")), deadline=None)
# tools/mutate.py: the same examples, but a failure is reported as found (no shrinking: only whether a test
# fails matters) and no example database is kept between mutants
settings.register_profile("mutation", parent=settings.get_profile("env"), database=None,
                          phases=[Phase.explicit, Phase.reuse, Phase.generate])
settings.load_profile(os.environ.get("REBIRTH_HYPOTHESIS_PROFILE", "env"))


@pytest.fixture(scope="module")
def module_cache(tmp_path_factory: pytest.TempPathFactory):
    """The private cache (AST, boards, records, checks) in a folder of the using module's own."""
    mp = pytest.MonkeyPatch()
    mp.setenv("REBIRTH_CACHE", str(tmp_path_factory.mktemp("cache")))
    yield
    mp.undo()


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):
    """Run `rebirth ARGS...` in-process; return (exit code, stdout, stderr)."""
    from rebirth_dsl.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        try:
            code = main([str(a) for a in args])
        except SystemExit as e:  # argparse usage errors
            code = int(e.code or 0)
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


@pytest.fixture(scope="module")
def browser():
    """The system Chromium through Playwright, one per test module; skipped, saying why, without either."""
    from web_helpers import ARGS, CHROMIUM

    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install playwright")
    if not Path(CHROMIUM).is_file():
        pytest.skip("no Chromium to drive: apt-get install -y chromium")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """A `rebirth serve` of this checkout on a free port, one per test module, its store in a fresh folder;
    stopped after the module (a module with other needs, e.g. the security tests, defines its own)."""
    from web_helpers import Server

    s = Server(tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]))
    yield s
    s.stop()
