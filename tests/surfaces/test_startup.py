"""What keeps `rebirth eval` quick to start, and keeps it doing exactly what it did: a warm run reads
validated boards and records, checked rulesets and parsed ASTs from the data-only cache (never importing
pydantic, Lark, jsonschema or the checks), yet refuses every file the validators refuse; the `rebirth`
program, as `python -m rebirth_dsl` and as its console script, imports none of them nor the layers that play
games, nor dataclasses, OpenSSL's hashlib, shutil or the tokenizer; the views it reads
hold what the models hold; the AST and ruleset classes with shared methods behave as the dataclasses
they replace; and the command line built for one subcommand reports errors as the whole one does."""

from __future__ import annotations

import ast
import copy
import json
import os
import pickle
import subprocess
import sys
import tomllib
from collections import OrderedDict
from dataclasses import FrozenInstanceError, asdict, dataclass, field, fields, is_dataclass, replace
from pathlib import Path

import pytest
from conftest import ROOT

from rebirth_dsl.board.model import load_board
from rebirth_dsl.board.view import load_board_view
from rebirth_dsl.compile.compiler import compile_rules
from rebirth_dsl.errors import RebirthError
from rebirth_dsl.lang.parser import load_rules
from rebirth_dsl.records.models import parse_record
from rebirth_dsl.records.record import load_record
from rebirth_dsl.records.resources import bundled
from rebirth_dsl.records.view import record_view
from rebirth_dsl.shared_methods import Node, Record, Struct, node, record, slotted_record, struct

HEAVY = ("pydantic", "lark", "jsonschema", "rebirth_dsl.check.checks", "rebirth_dsl.lang.syntax",
         "rebirth_dsl.board.model", "rebirth_dsl.records.models")
# what else a warm eval of a record never needs: the optional extras and the layers that play or serve games
NOT_FOR_EVAL = (*HEAVY, "numpy", "cffi", "starlette", "pygls", "matplotlib", "rebirth_dsl.play", "rebirth_dsl.native",
                "rebirth_dsl.pyengine", "rebirth_dsl.web", "rebirth_dsl.api", "rebirth_dsl.present.render",
                "dataclasses", "inspect", "ast",  # @dataclass's machinery: see test_a_warm_eval_imports_no_dataclass...
                "hashlib", "_hashlib", "hmac",  # OpenSSL, 12 M instructions: the cache's BLAKE2b needs none of it
                "shutil",  # argparse's width, 7 M (cli._Parser gives it)
                "tokenize", "copy",  # for generating engines and copying a record's data only
                "typing",  # only annotations name it: `from rebirth_dsl import TYPE_CHECKING` (rebirth_dsl/__init__.py)
                "argparse", "gettext", "locale",  # a plain command line is read without them (cli._plain_args)
                "json",  # its decoder's regular expressions, compiled at import: files.json_loads reads without it
                "random",  # with bisect and SHA-512: a deal draws from the C generator (accel.shuffle.draws)
                "rebirth_dsl.compile.reads",  # a card's analysis, made on its first read (compile.ruleset.CardDef)
                "rebirth_dsl.check.types",  # the expressions' types: the checks' and code generation's
                "rebirth_dsl.accel.fresh", "rebirth_dsl.accel.fast_end")  # devices for many games, or quiet ones
_PROBE = """
import contextlib, io, json, sys
from rebirth_dsl.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
heavy = sorted({m.split('.')[0] if not m.startswith('rebirth_dsl') else m for m in sys.modules} & set(HEAVY))
print(json.dumps({"code": code, "out": out.getvalue(), "heavy": heavy}))
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh private cache for this test (and the processes it starts)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("REBIRTH_CACHE", str(folder))
    return folder


def _eval_in_fresh_process(*args: str) -> dict:
    probe = f"HEAVY = {HEAVY!r}\n{_PROBE}"
    done = subprocess.run([sys.executable, "-c", probe, "eval", *args], capture_output=True, text=True,
                          env=dict(os.environ), cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("example", ["scotland-3p", "ireland-4p", "scenario-120"])
def test_a_warm_eval_imports_no_validator_parser_or_checks(cache_dir: Path, example: str) -> None:
    """The first run validates, parses and checks (and imports what does it); the second prints the same
    from the cache alone."""
    cold = _eval_in_fresh_process(example, "--json")
    warm = _eval_in_fresh_process(example, "--json")
    assert cold["code"] == warm["code"] == 0 and cold["out"] == warm["out"]
    assert "pydantic" in cold["heavy"] and "rebirth_dsl.check.checks" in cold["heavy"]
    assert warm["heavy"] == []
    names = {p.name.split("-")[0] for p in cache_dir.glob("*.json")}
    assert {"ast", "board", "record", "checked"} <= names


def _imported(*command: str) -> set[str]:
    """The modules a whole `python ...` process imports, as `-X importtime` lists them (the process runs as
    a user's does: its own entry point, its exit, bytecode caches as the environment has them)."""
    done = subprocess.run([sys.executable, "-X", "importtime", *command], capture_output=True, text=True,
                          env=dict(os.environ), cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [ln.split("|")[-1].strip() for ln in done.stderr.splitlines() if ln.startswith("import time:")]
    assert len(lines) > 10, done.stderr  # the listing is there: an empty one would prove nothing
    return set(lines[1:])  # the first line is the header


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in NOT_FOR_EVAL))


def test_the_rebirth_program_evaluates_a_record_without_the_heavy_modules(cache_dir: Path) -> None:
    """`python -m rebirth_dsl eval` and the `rebirth` console script (the entry pyproject.toml names, called
    as its generated script calls it) both take the lazy path: warm, neither imports a validator, the parser
    generator, the checks, an optional extra or a layer that plays games. A module-level import of any of them
    in the modules eval runs (cli.py above all) fails this."""
    script = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]["rebirth"]
    module, func = script.split(":")
    console = f"import sys; from {module} import {func} as entry; sys.argv[0] = 'rebirth'; sys.exit(entry())"
    for example in ("scenario-120", "scotland-3p"):
        _imported("-m", "rebirth_dsl", "eval", example)  # cold: fills the cache
        as_module = _imported("-m", "rebirth_dsl", "eval", example)
        as_script = _imported("-c", console, "eval", example)
        assert "rebirth_dsl.runtime.game" in as_module and "rebirth_dsl.runtime.game" in as_script  # it did run
        assert _heavy(as_module) == [] and _heavy(as_script) == []


# what @dataclass costs a process, once imported: `dataclasses` imports inspect, which imports ast and dis
# (42 M instructions of a warm eval's 377 M, callgrind), and each class compiles its methods from source
_DATACLASS_MACHINERY = ("dataclasses", "inspect", "ast", "dis")
_FIELDS_PROBE = """
import contextlib, io, json, sys
from rebirth_dsl.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
classes = []
for name, mod in sorted(sys.modules.items()):
    if name.startswith("rebirth_dsl"):
        classes += [f"{name}.{c.__qualname__}" for c in list(vars(mod).values()) if isinstance(c, type)
                    and c.__module__ == name and "__shared_fields__" in vars(c)]
print(json.dumps({"machinery": sorted(set(sys.modules) & set(MACHINERY)), "classes": classes}))
"""


def test_a_warm_eval_imports_no_dataclass_machinery(cache_dir: Path) -> None:
    """The classes on eval's path record their fields with rebirth_dsl/shared_methods.py, which never imports
    `dataclasses`: neither it nor what it imports (inspect, ast, dis) is loaded by a warm eval, though the
    AST, the ruleset, the state and the errors are all made."""
    probe = f"MACHINERY = {_DATACLASS_MACHINERY!r}\n{_FIELDS_PROBE}"
    for _ in range(2):  # the second run is the warm one
        done = subprocess.run([sys.executable, "-c", probe, "eval", "scenario-120"], capture_output=True,
                              text=True, env=dict(os.environ), cwd=ROOT, timeout=120)
        assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    for made in ("rebirth_dsl.lang.ast.Rules", "rebirth_dsl.compile.ruleset.Ruleset",
                 "rebirth_dsl.runtime.state.State", "rebirth_dsl.runtime.state.Event", "rebirth_dsl.errors.Diagnostic"):
        assert made in found["classes"]  # the probe sees the classes it is about
    assert found["machinery"] == []


def test_the_written_out_constructors_store_every_field_in_order() -> None:
    """Event, Placement and Setup (made in the engines' loops) write their constructors out; each stores its
    arguments as its fields, in order, as the shared one and @dataclass do (accel/fast_end.py relies on
    Event's doing so), and shows and compares them alike."""
    from rebirth_dsl.rules.kind import Placement
    from rebirth_dsl.runtime.setup import Setup
    from rebirth_dsl.runtime.state import Event
    from rebirth_dsl.shared_methods import field_names

    for cls in (Event, Placement, Setup):
        names = field_names(cls)
        values = [object() for _ in names]
        made = cls(*values)
        assert [getattr(made, n) for n in names] == values
        assert made == cls(*values) and made != cls(*values[:-1], object())
        assert repr(made) == f"{cls.__qualname__}({', '.join(f'{n}={v!r}' for n, v in zip(names, values, strict=True))})"
        assert [f.name for f in fields(made)] == list(names)  # dataclasses sees it as the dataclass it was
    assert Setup([], []).decks == {} and Setup([], []).decks is not Setup([], []).decks


@pytest.mark.parametrize("name", sorted(bundled("boards")))
def test_a_board_view_holds_what_the_model_holds(cache_dir: Path, name: str) -> None:
    """Fresh and read back from the cache, a board's view has the model's attributes and geometry."""
    path = bundled("boards")[name]
    model = load_board(path)
    for view in (load_board_view(path), load_board_view(path)):  # validated, then from the cache
        assert (view.name, view.title, view.notes) == (model.name, model.title, model.notes)
        assert [(h.q, h.r, h.kind, h.name, h.area, h.tags, h.ability) for h in view.hexes] == [
            (h.q, h.r, h.kind, h.name, h.area, h.tags, h.ability) for h in model.hexes]
        assert view.geometry.neighbours == model.geometry.neighbours
        assert view.digest  # what later stages key on


@pytest.mark.parametrize("name", sorted(bundled("examples")))
def test_a_record_view_holds_what_the_model_holds(cache_dir: Path, name: str) -> None:
    """Every field of every move, and the setup, as GameRecord has them (the hex a tuple)."""
    path = bundled("examples")[name]
    model = parse_record(json.loads(path.read_text(encoding="utf-8")))
    for view in (record_view(path, name), record_view(path, name)):
        for key in ("rules", "board", "players", "scenario", "over", "agents"):
            assert getattr(view, key) == getattr(model, key)
        for key in ("seed", "set_aside", "supply", "decks", "missions", "scores", "missions_held"):
            assert getattr(view.setup, key) == getattr(model.setup, key)
        assert len(view.moves) == len(model.moves)
        for mv, m in zip(view.moves, model.moves, strict=True):
            assert (mv.player, mv.tile, mv.hex, mv.choices) == (m.player, m.tile, m.hex, m.choices)
            assert mv.data() == m.model_dump(exclude_defaults=True) | {"hex": list(m.hex) if m.hex else None}


def test_changed_bytes_are_validated_again(cache_dir: Path, tmp_path: Path) -> None:
    """A board or record whose bytes changed since they were validated is validated again: an invalid one
    is refused with the validators' own diagnostics, however warm the cache."""
    board = tmp_path / "board.json"
    data = json.loads(bundled("boards")["scotland"].read_text(encoding="utf-8"))
    board.write_text(json.dumps(data))
    load_board_view(board)
    data["hexes"][3]["q"] = 10**6  # past MAX_COORD
    board.write_text(json.dumps(data))
    with pytest.raises(RebirthError) as warm:
        load_board_view(board)
    with pytest.raises(RebirthError) as model:
        load_board(board)
    assert warm.value.render() == model.value.render()

    rec = json.loads(bundled("examples")["scotland-3p"].read_text(encoding="utf-8"))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec))
    load_record(path, allow_paths=True)
    rec["moves"][0]["hex"] = "north"
    path.write_text(json.dumps(rec))
    with pytest.raises(RebirthError) as bad:
        load_record(path, allow_paths=True)
    assert "$.moves[0].hex" in bad.value.render()


def test_rules_that_fail_their_checks_are_refused_every_time(cache_dir: Path, tmp_path: Path) -> None:
    """Only a pass is remembered: a ruleset with errors is checked (and refused) on every run, and editing
    a ruleset that passed makes it checked again."""
    board = load_board_view(bundled("boards")["scotland"])
    base = (ROOT / "rules" / "scotland.rules").read_text(encoding="utf-8")
    rules = tmp_path / "mine.rules"
    rules.write_text(base)
    compile_rules(load_rules(rules), board)
    assert len(list(cache_dir.glob("checked-*.json"))) == 1
    rules.write_text(base + "\nplace food on food, enrgy\n")
    for _ in range(2):
        with pytest.raises(RebirthError, match="unknown hex kind `enrgy`"):
            compile_rules(load_rules(rules), board)
    assert len(list(cache_dir.glob("checked-*.json"))) == 1


# ----- shared dataclass methods behave as the generated ones ---------------------------------------
@dataclass(frozen=True, slots=True)
class _Gen:
    a: int
    b: tuple = ()
    c: dict = field(default_factory=dict, compare=False)


@node
class _Shared(Node):
    a: int
    b: tuple = ()
    c: dict = field(default_factory=dict, compare=False)


@dataclass
class _GenMutable:
    a: int
    b: list = field(default_factory=list)
    hidden: int = field(default=0, repr=False)


@record
class _SharedMutable(Record):
    a: int
    b: list = field(default_factory=list)
    hidden: int = field(default=0, repr=False)


@pytest.mark.parametrize("args,kwargs", [((1,), {}), ((1, (2,)), {}), ((1, (2,), {"x": 1}), {}), ((), {"a": 1}),
                                         ((1,), {"c": {"y": 2}}), ((), {"b": (3,), "a": 4})])
def test_frozen_shared_methods_match_the_dataclass(args: tuple, kwargs: dict) -> None:
    """Construction, repr, equality, hash, match args, fields, replace, copy, pickle and frozenness."""
    gen, shared = _Gen(*args, **kwargs), _Shared(*args, **kwargs)
    assert repr(shared) == repr(gen).replace("_Gen(", "_Shared(")
    assert shared == _Shared(*args, **kwargs) and hash(shared) == hash(_Shared(*args, **kwargs))
    assert hash(shared) == hash(gen)  # both hash the tuple of compared fields
    assert shared == replace(shared, c={"other": 1}) and shared != replace(shared, a=99)
    assert shared != gen and (shared == 1) is False
    assert _Shared.__match_args__ == _Gen.__match_args__ and [f.name for f in fields(shared)] == ["a", "b", "c"]
    assert copy.deepcopy(shared) == shared and pickle.loads(pickle.dumps(shared)) == shared
    assert asdict(shared) == asdict(gen) and is_dataclass(shared) and is_dataclass(_Shared)
    assert not hasattr(shared, "__dict__")
    with pytest.raises(FrozenInstanceError):
        shared.a = 2  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del shared.a  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Shared()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Shared(1, (), {}, 4)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Shared(1, d=2)  # type: ignore[call-arg]


@dataclass(slots=True, eq=False)
class _GenStruct:
    a: int
    b: list = field(default_factory=list)
    hidden: int = field(default=0, repr=False)


@struct
class _SharedStruct(Struct):
    a: int
    b: list = field(default_factory=list)
    hidden: int = field(default=0, repr=False)


def test_struct_shared_methods_match_the_dataclass() -> None:
    """A Struct (the game state): the constructor and repr of the dataclass, equal and hashed as an object,
    mutable and slotted, and a subclass with empty slots (Game) built through it."""
    gen, shared = _GenStruct(1, [2], hidden=3), _SharedStruct(1, [2], hidden=3)
    assert repr(shared) == repr(gen).replace("_GenStruct(", "_SharedStruct(")
    assert shared.b is not _SharedStruct(1).b and _SharedStruct(a=4).b == [] and _SharedStruct(1).hidden == 0
    assert shared == shared and shared != _SharedStruct(1, [2], hidden=3)  # equal only to itself
    assert hash(shared) == object.__hash__(shared) and hash(gen) == object.__hash__(gen)  # hashed as an object
    shared.a = 5
    assert shared.a == 5 and not hasattr(shared, "__dict__")
    assert _SharedStruct.__match_args__ == _GenStruct.__match_args__

    class Sub(_SharedStruct):
        __slots__ = ()

    sub = object.__new__(Sub)
    _SharedStruct.__init__(sub, a=7)
    assert repr(sub) == f"{Sub.__qualname__}(a=7, b=[])"
    with pytest.raises(TypeError):
        _SharedStruct()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _SharedStruct(1, c=2)  # type: ignore[call-arg]


@slotted_record
class _SharedSlotted(Record):
    a: int
    b: list = field(default_factory=list)
    hidden: int = field(default=0, repr=False)


@pytest.mark.parametrize("cls", [_SharedMutable, _SharedSlotted])
def test_mutable_shared_methods_match_the_dataclass(cls: type) -> None:
    """A Record (slotted or not, as Diagnostic is): fresh default factories, repr without repr=False fields,
    equality, unhashable, mutable, copied and pickled."""
    gen, shared = _GenMutable(1), cls(1)
    assert repr(shared) == repr(gen).replace("_GenMutable(", f"{cls.__name__}(")
    assert shared.b is not cls(1).b
    assert shared == cls(1) and shared != cls(2)
    with pytest.raises(TypeError):
        hash(shared)
    shared.a = 5
    assert shared == cls(a=5)
    assert copy.deepcopy(shared) == shared and pickle.loads(pickle.dumps(shared)) == shared
    assert hasattr(shared, "__dict__") is (cls is _SharedMutable)


def test_an_unknown_option_is_reported_by_the_whole_parser(run_cli) -> None:  # noqa: ANN001 - the fixture
    """`rebirth eval` builds only its own parser, but its errors are those of the whole command line."""
    code, _, err = run_cli("eval", "scotland-3p", "--bogus")
    assert code == 2 and "unrecognized arguments: --bogus" in err
    assert "check,eval,hint,moves" in err.replace("\n", "").replace(" ", "")


def _plain_lines() -> list[list[str]]:
    """Per subcommand, plain command lines: its positional arguments (placeholder words) alone, then with
    every on/off flag before them, then among them in reverse order."""
    from rebirth_dsl.cli import COMMANDS, _declare, _Declared

    lines = []
    for command in COMMANDS:
        root = _Declared()
        _declare(root, command)
        options = root.commands[command].options
        words = [f"w{i}" for i, (names, _) in enumerate(options) if not names[0].startswith("-")]
        flags = [names[-1] for names, kw in options if kw.get("action") in ("store_true", "store_false")]
        lines += [[command, *words], [command, *flags, *words], [command, *words[:1], *flags[::-1], *words[1:]]]
    return lines


@pytest.mark.parametrize("argv", _plain_lines(), ids=" ".join)
def test_a_plain_command_line_is_read_as_argparse_reads_it(argv: list[str]) -> None:
    """`rebirth eval GAME --json` and the like are read without argparse (cli._plain_args), to the very
    arguments argparse gives, by the whole parser and by the subcommand's own; only the subcommands with
    subcommands or lists of arguments are left to argparse."""
    from rebirth_dsl.cli import _plain_args, build_parser

    plain = _plain_args(argv)
    if argv[0] in ("fmt", "new", "board"):
        assert plain is None
        return
    assert plain is not None
    assert vars(plain) == vars(build_parser().parse_args(argv)) == vars(build_parser(argv[0]).parse_args(argv))


@pytest.mark.parametrize("argv", [["eval"], ["eval", "g", "h"], ["eval", "g", "--at", "3"], ["eval", "g", "--exp"],
                                  ["eval", "-"], ["eval", "g", "--"], ["eval", "g", "-h"], ["eval", "--json=1", "g"],
                                  ["--version"], ["evil", "g"], ["eval", "-1"], ["play", "--players", "2"]])
def test_any_other_command_line_is_left_to_argparse(argv: list[str]) -> None:
    """An option with a value, an abbreviation, help, `--`, a word starting with -, a word too many or too few:
    argparse reads the line (or refuses it, with its usage and message)."""
    from rebirth_dsl.cli import _plain_args

    assert _plain_args(argv) is None


def test_a_plain_eval_imports_no_argparse(cache_dir: Path) -> None:
    """`rebirth eval GAME --json` reads its command line without argparse, so without gettext and locale (see
    NOT_FOR_EVAL); a line argparse must read still imports it."""
    _imported("-m", "rebirth_dsl", "eval", "scotland-3p")  # cold: fills the cache
    assert not {"argparse", "gettext", "locale"} & _imported("-m", "rebirth_dsl", "eval", "scotland-3p", "--json")
    assert "argparse" in _imported("-m", "rebirth_dsl", "eval", "scotland-3p", "--at", "3")


# ----- what a replay leaves undone until it is asked for -------------------------------------------
def test_expressions_compile_at_their_first_call_to_the_same_values(cache_dir: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A compiled ruleset's expressions (compile.exprgen.lazy_expr_function) are compiled at their first
    call: before it, none is; each then gives what the closures (the reference) give on a played game, and
    stays the very function the ruleset holds; the analysis of what a card reads waits for its first read
    and is then what reads_of finds."""
    from rebirth_dsl.compile import exprgen
    from rebirth_dsl.compile.closures import compile_expr
    from rebirth_dsl.compile.prims import Ctx
    from rebirth_dsl.compile.reads import reads_of, threshold_of
    from rebirth_dsl.records import record
    from rebirth_dsl.records.games import load_game

    # a ruleset compiled for this test: one an earlier test of the process compiled has called its cards
    monkeypatch.setattr(record, "_CACHE", OrderedDict())
    monkeypatch.setattr(record, "_FILES", OrderedDict())
    game = load_game("scotland-3p").game
    cards = [c for deck in game.rs.decks.values() for c in deck]
    assert cards and all(c.cond.fn.__code__ is exprgen._first_call.__code__ for c in cards)  # none compiled
    assert all("_analysis" in vars(c) for c in cards)  # nor analysed
    for card in cards:
        fn = card.cond.fn
        for me in range(len(game.players)):
            assert card.cond(Ctx(game, me)) == compile_expr(card.cond.node, game.t)(Ctx(game, me)), card.name
        assert card.cond.fn is fn and fn.__code__ is not exprgen._first_call.__code__  # compiled in place
        assert fn.__code__.co_filename == "<rebirth expression>"  # named as compile() names it (emit.run_source)
        assert card.reads == reads_of(card.cond.node, game.t) and card.threshold == threshold_of(card.cond.node, game.t)
        assert "_analysis" not in vars(card)


_JSON_PROBE = r"""
import sys
from rebirth_dsl.files import json_loads
texts = ['{"a": [1, 2.5e3, true, null, "\\u00e9"]} ', '{"a": 1, oops}', '[1] x', '', '\ufeff[1]', ' [NaN] ',
         b'\xef\xbb\xbf[1]', '[1]'.encode('utf-16'), b'["\xed\xa0\x80"]', b'\xff', '[' * 100_000, '1' * 5000]
def outcome(read, text):
    try:
        return repr(read(text))
    except Exception as e:
        return f"{type(e).__name__}: {e}"
before = "json" in sys.modules
ours = [outcome(json_loads, t) for t in texts]  # first, while json is not imported: the first refusal imports it
import json
print(repr((before, ours == [outcome(json.loads, t) for t in texts], ours)))
"""


def test_json_loads_reads_and_refuses_as_json_does() -> None:
    """files.json_loads, which a warm eval reads its JSON with instead of importing json, gives json.loads's
    value for every text and json's own error for every text json refuses (in a process without json)."""
    done = subprocess.run([sys.executable, "-c", _JSON_PROBE], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    before, same, ours = ast.literal_eval(done.stdout)
    assert same and not before
    assert any(o.startswith("JSONDecodeError") for o in ours) and any(o.startswith("RecursionError") for o in ours)


@pytest.mark.parametrize("folder", ["rules", "boards", "examples", "schemas", "boards/maps"])
def test_a_bundled_file_by_name_is_the_listing_s(folder: str) -> None:
    """bundle.bundled_file (one name, without walking the folder) finds what bundled() lists under that name,
    and nothing where the listing has nothing: other case, a file's own suffix, a folder, dots."""
    from rebirth_dsl.bundle import bundled_file

    listed = bundled(folder)
    assert listed
    for name, path in listed.items():
        assert bundled_file(folder, name) == path and str(bundled_file(folder, name)) == str(path)
    first = next(iter(listed))
    for name in (first.upper(), first + "x", f"{first}.json", f"{first}.rules", "variants", ".", "..", "../rules",
                 "./" + first, first + "/", "nope/none", "\x00"):
        assert bundled_file(folder, name) == listed.get(name)
