"""The package's layers: each imports only from the layers before it, and no modules import in a circle.

The check reads the source (every import statement, module-level or not), so an import hidden inside a
function is seen as well. Imports under `if TYPE_CHECKING:` count for the direction of the layers but not
as circles: they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PKG = ROOT / "rebirth_dsl"

# the data flow, lowest first; a module may import from its own layer and those before it
LAYERS: list[tuple[str, ...]] = [
    ("rebirth_dsl", "rebirth_dsl.errors", "rebirth_dsl.cache", "rebirth_dsl.files"),
    ("rebirth_dsl.lang",),
    ("rebirth_dsl.board",),
    ("rebirth_dsl.check",),
    ("rebirth_dsl.compile",),
    ("rebirth_dsl.rules",),
    ("rebirth_dsl.accel",),
    ("rebirth_dsl.runtime",),
    ("rebirth_dsl.pyengine",),
    ("rebirth_dsl.records",),
    ("rebirth_dsl.native",),
    ("rebirth_dsl.present",),
    ("rebirth_dsl.play",),
    ("rebirth_dsl.web",),
    ("rebirth_dsl.api",),
    ("rebirth_dsl.envs",),
    ("rebirth_dsl.cli", "rebirth_dsl.bench", "rebirth_dsl.__main__", "rebirth_dsl.lsp"),
]


def module_name(root: Path, path: Path) -> str:
    """`rebirth_dsl/lang/parser.py` -> `rebirth_dsl.lang.parser` (a package is its __init__)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes inside `if TYPE_CHECKING:` blocks."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for sub in node.body:
                out.update(id(n) for n in ast.walk(sub))
    return out


def imports(root: Path, type_only: bool = True) -> dict[str, set[str]]:
    """Every module of the package and the package modules it imports (with type_only=False, leaving out
    the imports that only type checkers run)."""
    pkg = root.name
    out: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        mod = module_name(root, path)
        is_pkg = path.name == "__init__.py"
        deps: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = set() if type_only else _type_only(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.split(".")[0] == pkg)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[: len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] != pkg:
                    continue
                deps.add(target)
                for a in node.names:  # `from pkg.sub import module` imports that module
                    deps.add(f"{target}.{a.name}")
        out[mod] = deps
    return {m: {d for d in ds if d in out and d != m} for m, ds in out.items()}


def layer_of(mod: str, layers: list[tuple[str, ...]]) -> int:
    """The index of the layer a module belongs to (its longest matching prefix)."""
    best, found = -1, -1
    for i, names in enumerate(layers):
        for n in names:
            if (mod == n or mod.startswith(n + ".")) and len(n) > best:
                best, found = len(n), i
    return found


def problems(root: Path, layers: list[tuple[str, ...]]) -> list[str]:
    """Every upward import, module outside the layers, and import circle, as messages."""
    graph = imports(root)
    out: list[str] = []
    for mod, deps in sorted(graph.items()):
        lm = layer_of(mod, layers)
        if lm < 0:
            out.append(f"{mod} belongs to no layer")
            continue
        for d in sorted(deps):
            ld = layer_of(d, layers)
            if ld > lm:
                out.append(f"upward import: {mod} (layer {lm}) imports {d} (layer {ld})")
    # circles: depth-first search for a back edge, over the imports that run
    graph = imports(root, type_only=False)
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == 1:
                out.append("import circle: " + " -> ".join(stack[stack.index(d):] + [d]))
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return out


def test_the_package_imports_downwards_only_and_without_circles() -> None:
    """The real package: no upward import, no circle, every module in a layer."""
    assert problems(PKG, LAYERS) == []


def test_every_layer_is_a_real_subpackage() -> None:
    """The layer table names what exists (a renamed folder cannot silently escape the check)."""
    mods = imports(PKG)
    for names in LAYERS:
        for n in names:
            assert any(m == n or m.startswith(n + ".") for m in mods), n


def _write(root: Path, files: dict[str, str]) -> Path:
    pkg = root / "rebirth_dsl"
    for name, text in files.items():
        p = pkg / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return pkg


def test_the_check_fails_on_a_circle_and_an_upward_import(tmp_path: Path) -> None:
    """The check can fail: a planted circle inside a layer and an import from a later layer are both
    reported, including one hidden inside a function."""
    pkg = _write(tmp_path, {
        "__init__.py": "",
        "lang/__init__.py": "",
        "lang/a.py": "from rebirth_dsl.lang import b\n",
        "lang/b.py": "def f():\n    from rebirth_dsl.lang.a import x\n",
        "board/__init__.py": "",
        "board/model.py": "def g():\n    from rebirth_dsl.play import loop\n",
        "play/__init__.py": "",
        "play/loop.py": "from ..board import model\n",
    })
    layers = [("rebirth_dsl",), ("rebirth_dsl.lang",), ("rebirth_dsl.board",), ("rebirth_dsl.play",)]
    found = problems(pkg, layers)
    assert any(p.startswith("import circle: rebirth_dsl.lang.a -> rebirth_dsl.lang.b -> rebirth_dsl.lang.a")
               for p in found), found
    assert "upward import: rebirth_dsl.board.model (layer 2) imports rebirth_dsl.play.loop (layer 3)" in found
    assert not any("play.loop (layer 3) imports" in p for p in found)  # a relative import downwards is fine
