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
