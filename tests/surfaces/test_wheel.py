"""The package as a user installs it: a wheel built from this checkout, installed in a fresh virtual
environment outside the checkout, and every main command run from another folder. The bundled games
must come with it (found beside the installed package), never from the source tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel built from this checkout, as `pip wheel .` builds it (in an isolated build environment)."""
    dist = tmp_path_factory.mktemp("dist")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(ROOT)],
                          cwd=dist, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return next(dist.glob("rebirth_dsl-*.whl"))


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the fresh environment's bin folder, an empty working folder), with the wheel installed."""
    base = tmp_path_factory.mktemp("wheel")
    env_dir = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    pip = env_dir / "bin" / "pip"
    # without the caller's PYTHONPATH: a checkout on it would look to pip like rebirth-dsl already installed
    done = subprocess.run([str(pip), "install", "-q", str(wheel)], capture_output=True, text=True, env=clean_env())
    assert done.returncode == 0, done.stderr[-2000:]
    work = base / "elsewhere"
    work.mkdir()
    return env_dir / "bin", work


def clean_env() -> dict[str, str]:
    """This process's environment less what points Python at a checkout or another environment."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def run(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A command of the installed environment, run in `cwd`, with no trace of the checkout on its paths."""
    env = clean_env()
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["REBIRTH_CACHE"] = str(cwd / ".cache")
    return subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_the_wheel_carries_the_games(wheel: Path) -> None:
    """The wheel holds the rules, boards, schemas and examples inside the package."""
    names = zipfile.ZipFile(wheel).namelist()
    for folder, suffix in (("rules", ".rules"), ("boards", ".json"), ("schemas", ".json"), ("examples", ".json")):
        assert any(n.startswith(f"rebirth_dsl/games/{folder}/") and n.endswith(suffix) for n in names), folder
    assert "rebirth_dsl/lang/grammar.lark" in names


def test_installed_commands_work_from_another_folder(installed: tuple[Path, Path]) -> None:
    """list, check, play, eval, simulate, draw and the benchmark, from a folder outside the checkout."""
    bin_dir, work = installed
    where = run(bin_dir, work, str(bin_dir / "python"), "-c", "import rebirth_dsl; print(rebirth_dsl.__file__)")
    assert str(ROOT) not in where.stdout and "site-packages" in where.stdout, where.stdout
    listed = run(bin_dir, work, "rebirth", "list")
    assert listed.returncode == 0 and "scotland" in listed.stdout and "ireland" in listed.stdout, listed.stderr
    checked = run(bin_dir, work, "rebirth", "check", "scotland")
    assert checked.returncode == 0, checked.stderr
    played = run(bin_dir, work, "rebirth", "play", "--rules", "ireland", "--players", "3", "-o", "g.json")
    assert played.returncode == 0, played.stderr
    ev = run(bin_dir, work, "rebirth", "eval", "g.json", "--json")
    assert ev.returncode == 0 and json.loads(ev.stdout)["finished"], ev.stderr
    sim = run(bin_dir, work, "rebirth", "simulate", "--games", "8", "--players", "3", "--workers", "2")
    assert sim.returncode == 0 and "games" in sim.stdout, sim.stderr
    drawn = run(bin_dir, work, "rebirth", "draw", "scotland", "-o", "s.svg")
    assert drawn.returncode == 0 and (work / "s.svg").read_text().startswith("<svg"), drawn.stderr
    example = run(bin_dir, work, "rebirth", "eval", "scotland-3p")
    assert example.returncode == 0, example.stderr
    bench = run(bin_dir, work, str(bin_dir / "python"), "-m", "rebirth_dsl.bench", "--seconds", "0.2")
    assert bench.returncode == 0 and "random games/s" in bench.stdout, bench.stderr


def test_installed_tests_files_run(installed: tuple[Path, Path]) -> None:
    """The bundled rulesets' tests files (rules/*.tests, with their boards) come with the wheel and pass,
    from a folder outside the checkout."""
    bin_dir, work = installed
    for name, n in (("scotland", 50), ("ireland", 32)):
        done = run(bin_dir, work, "rebirth", "test", name)
        assert done.returncode == 0 and done.stdout.strip().endswith(f"{name}.tests: {n} positions passed"), done.stderr


def test_a_variant_author_starts_from_an_empty_folder(installed: tuple[Path, Path]) -> None:
    """Issue 22's acceptance: `rebirth new variant`, `check`, `fmt --check`, `test` and `play` of the variant
    in an empty folder of the installed package's user, with no path into the installation."""
    bin_dir, work = installed
    folder = work / "hills-author"
    folder.mkdir()
    made = run(bin_dir, folder, "rebirth", "new", "variant", "hills", "--extends", "scotland")
    assert made.returncode == 0, made.stderr
    assert "site-packages" not in (folder / "hills.rules").read_text()
    checked = run(bin_dir, folder, "rebirth", "check", "hills.rules")
    assert checked.returncode == 0 and "hills.rules: ok" in checked.stdout, checked.stderr
    formatted = run(bin_dir, folder, "rebirth", "fmt", "--check")
    assert formatted.returncode == 0, formatted.stderr
    tested = run(bin_dir, folder, "rebirth", "test", "hills.tests")
    assert tested.returncode == 0 and tested.stdout.strip() == "hills.tests: 50 positions passed", tested.stderr
    played = run(bin_dir, folder, "rebirth", "play", "--rules", "hills.rules", "--players", "2", "--agents",
                 "random,random", "-o", "g.json", "--quiet")
    assert played.returncode == 0 and (folder / "g.json").is_file(), played.stderr
