"""Build hook: the wheel carries the project's games (rules/, boards/, schemas/, examples/) inside the
package as rebirth_dsl/games/, copied from the top-level folders, which stay the single source."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

GAMES = ("rules", "boards", "schemas", "examples")


class BuildWithGames(build_py):
    """build_py, then the top-level game folders copied into the built package."""

    def run(self) -> None:
        """Build the modules, then copy the games beside them."""
        super().run()
        root = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "rebirth_dsl" / "games"
        for folder in GAMES:
            src = root / folder
            if src.is_dir():
                shutil.copytree(src, target / folder, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": BuildWithGames})
