"""Fuzz every command: the Click tree behind the Typer app is walked, and each command (sub-commands
of `layout`, `tma`, `results`, `ptx`, `scenario` included) is invoked with malformed and extreme
values in its own parameters: negative, zero, huge, NaN/inf, empty, unicode and control-character
text, missing/folder/junk-file paths, near-miss choices, repeated options, options of other
commands, now and then one valid value per parameter so deeper checks are reached.

Whatever comes in, the answer keeps the project's rule for bad input (docs/exit-codes.md):
exit 0, 1, 2 or 3, never an escaped exception or a `Traceback`, never an "internal error", never a
hang (each invocation runs under a timer); exit 1 only from a command that ran a check; exit 2/3
with exactly one `fmhactl: error:` line on stderr and, for exit 2, no stored result row added.

Knobs: FMHACTL_FUZZ_EXAMPLES (examples per command, default 8), FMHACTL_FUZZ_TIMEOUT_S (per
invocation, default 20). Inputs are fresh every run (not derandomized); hypothesis prints the
falsifying example, and every assertion names the argv.

Commands that would do long legitimate work with valid values (compiling kernels, running a
scenario) keep one input invalid (INVALID_ONLY); a well-formed Ray address is never given (a
connection attempt is network work); commands whose defaults write into the checkout always get an
output folder of the example's own (SAFE_OUTPUTS), every example runs in a folder of its own, and
no value names an absolute path the fuzzer did not make. No GPU is assumed (FMHACTL_ASSUME_NO_GPU),
so valid GPU work ends at once with exit 3.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import tempfile
import time
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")
import typer  # noqa: E402
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from fmhactl.cli.app import app  # noqa: E402
from fmhactl.cli.argv import optional_option_values  # noqa: E402

EXAMPLES = int(os.environ.get("FMHACTL_FUZZ_EXAMPLES", "8"))
TIMEOUT_S = float(os.environ.get("FMHACTL_FUZZ_TIMEOUT_S", "20"))

SKIPPED = {("tui",): "interactive: a Textual app (its --screenshot path has tests/tui)"}

# Exit 1 is "a check ran and failed": only these commands run one on CPU-only input, and only when
# their argv holds the marker ("" for always: the layout and tma commands are checkers, documented so).
CHECK_COMMANDS = {("status",): "--check", ("merge",): "--demo", ("ptx", "scan"): "", ("ptx", "rewrite"): "",
                  ("ptx", "link"): "", ("tma", "check"): "", ("layout", "tmem"): "", ("layout", "smem"): "",
                  ("layout", "plan"): "", ("layout", "desc", "decode"): "", ("layout", "desc", "encode"): "",
                  ("layout", "idesc", "decode"): "", ("layout", "idesc", "encode"): ""}

# Valid values here mean long real work (NVRTC/nvcc builds, whole scenarios): these parameters are
# always given, and never a valid value.
INVALID_ONLY = {("build",): "variants", ("scenario", "run"): "name", ("ptx", "scan"): "source",
                ("ptx", "rewrite"): "source", ("ptx", "link"): "source"}

# Left out, these options default to the checkout (STATUS.md, evidence/): an example's own folder instead.
SAFE_OUTPUTS = {("status",): "--out", ("results", "export"): "--out"}

# A value the parameter accepts, by name, where it has no default of its own.
VALID = {
    "variant": ["ref", "sm100_tma_s2_tmem", "sm90_pipelined", "sm100_direct_tmem"],
    "variants": ["ref", "sm90_pipelined"],
    "--shape": ["d=64", "b=1,h=2,t=64,s=128,d=64", "t=128,s=512,d=128"],
    "--at": ["S", "P", "O"],
    "--grid": ["smoke"],
    "--suite": ["sm90"],
    "--arch": ["sm_90a", "sm100"],
    "--seed": ["0", "7"],
    "--random": ["2"],
    "--gpus": ["all", "1", "0,1"],
    "--baseline": ["cudnn", "flash"],
    "--model": ["llama-small"],
    "--prompt": ["128"],
    "--context": ["1024"],
    "--jobs": ["1"],
    "--kind": ["verify", "build"],
    "--status": ["PASS", "OK"],
    "--mode": ["native", "emulated"],
    "--since": ["2026-01-01"],
    "--until": ["2027-01-01"],
    "--limit": ["5"],
    "--variant": ["ref"],
    "--session": ["abc"],
    "--name": ["demo"],
    "--head-dim": ["128", "64"],
    "--dtype": ["bf16", "f16"],
    "--dims": ["128,128"],
    "--strides": ["256"],
    "--box": ["16,128"],
    "--rank": ["2"],
    "--preset": ["seed002"],
    "--start": ["0", "1024"],
    "--sbo": ["1024"],
    "--lbo": ["16"],
    "--taddr": ["0"],
    "--imm": ["1"],
    "--cell": ["0,0"],
    "--num": ["1", "4"],
    "--katom": ["128"],
    "--element": ["0,0"],
    "--desc": ["0x4000404000010000"],
    "--b": ["bf16"],
    "--warp": ["0"],
    "value": ["0x4000404000010000", "0"],
    "--compare": ["sm100_tma_s2_tmem sm100_tma_tmem"],
}

# Never given a well-formed cluster address: connecting to one is network work, not input handling.
_ADDRESS = re.compile(r"^(ray://)?[^:]+:\d+$")

INTS = ["0", "-1", "-0", "1", "2", "-2147483649", str(2**31), str(2**32), str(2**63), str(-2**63), str(2**64),
        str(10**30), "9" * 400, "1e3", "0x10", "1.5", "+5", " 7 ", "1_000", "\u0663", "nan", "inf", "", " ", "--"]
FLOATS = ["0", "-0.0", "-1", "nan", "NaN", "-nan", "inf", "-inf", "1e309", "5e-324", "1e-300", str(2**63),
          str(10**30), "1_0.5", "0x1p3", "", " ", "\u0663"]
TEXT_EDGES = ["", " ", "\t", "-", "-x", "\u202e", "\ufeff", "a" * 5000, "ä" * 300, "\U0001F600", "..", "../..",
              "/", "a=b", "=", ",", ",,,", "1,2,3", "x" * 64 + "=1", "\x01\x02", "\x1b[31m", "\r\n", "%s%n",
              "{}", "[]", "null", "true", "-1,-1", "1e999", "0" * 300]
BIG_FILE_BYTES = 70 << 20  # above the 1 MiB (TOML), 32 MiB (trace --raw) and 64 MiB (PTX) input caps
_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",), exclude_characters="\x00"),
                max_size=30)
_CONTROL = st.text(alphabet=st.characters(min_codepoint=1, max_codepoint=31), min_size=1, max_size=5)


@dataclass(frozen=True)
class Param:
    """One option or argument of a command, reduced to what the fuzzer needs."""

    name: str                 # "--shape" (its longest spelling) or the argument's name
    opts: tuple[str, ...]     # every spelling of an option, "--no-x" forms included; () for an argument
    kind: str                 # flag, int, float, path or text
    multiple: bool            # a repeatable option, or an argument taking any number of values
    nargs: int                # values per occurrence (a --compare A B option takes 2)
    required: bool
    default: Any

    @property
    def is_option(self) -> bool:
        return bool(self.opts)


@dataclass(frozen=True)
class Command:
    path: tuple[str, ...]
    params: tuple[Param, ...]
    is_group: bool


def _kind(annotation: Any, is_flag: bool) -> tuple[str, int]:
    """(kind, nargs) of a Typer annotation: Optional[...] and list[...] unwrapped."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin is typing.Union or (origin is not None and type(None) in typing.get_args(annotation)):
        return _kind(args[0], is_flag)
    if origin in (list, typing.List):
        return _kind(args[0], is_flag)
    if origin is tuple:
        return _kind(args[0], is_flag)[0], len(args)
    if is_flag or annotation is bool:
        return "flag", 1
    if annotation in (int, float):
        return annotation.__name__, 1
    if isinstance(annotation, type) and issubclass(annotation, os.PathLike):
        return "path", 1
    return "text", 1


def _click_kind(param_type: Any, is_flag: bool) -> str:
    """The kind of a Click parameter type (typer before 0.29 builds on Click and keeps no annotation)."""
    import click

    if is_flag or isinstance(param_type, click.types.BoolParamType):
        return "flag"
    if isinstance(param_type, click.types.IntParamType):
        return "int"
    if isinstance(param_type, click.types.FloatParamType):
        return "float"
    if isinstance(param_type, (click.Path, click.File)):
        return "path"
    return "text"


def _param_kind(p: Any) -> tuple[str, int]:
    """(kind, nargs) of a parameter: from its annotation where typer keeps one (0.29+, its own
    vendored Click), else from the Click type (older typer on plain Click)."""
    is_flag = bool(getattr(p, "is_flag", False))
    descriptor = getattr(p, "type_descriptor", None)
    if descriptor is not None:
        return _kind(descriptor.annotation, is_flag)
    import click

    if isinstance(p.type, click.Tuple):
        return _click_kind(p.type.types[0], False), len(p.type.types)
    return _click_kind(p.type, is_flag), 1


def _param(p: Any) -> Param:
    opts = tuple(getattr(p, "opts", ())) + tuple(getattr(p, "secondary_opts", ()))
    is_option = type(p).__name__ != "TyperArgument"
    kind, nargs = _param_kind(p)
    name = max(p.opts, key=len) if is_option else p.name
    return Param(name=name, opts=opts if is_option else (), kind=kind,
                 multiple=bool(p.multiple) or (not is_option and p.nargs == -1),
                 nargs=max(nargs, p.nargs if p.nargs > 0 else 1), required=bool(p.required), default=p.default)


def walk(cmd: Any = None, path: tuple[str, ...] = ()) -> list[Command]:
    """Every command and group below the root of the Click tree, depth first."""
    cmd = cmd if cmd is not None else typer.main.get_command(app)
    found = []
    subs = getattr(cmd, "commands", None)
    if path:
        found.append(Command(path, tuple(_param(p) for p in cmd.params), subs is not None))
    for name, sub in (subs or {}).items():
        found.extend(walk(sub, (*path, name)))
    return found


def typer_paths(t: typer.Typer, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """The commands as registered on the Typer apps (not through Click): the coverage check's reference."""
    paths = set()
    for info in t.registered_commands:
        paths.add((*prefix, info.name or typer.main.get_command_name(info.callback.__name__)))
    for group in t.registered_groups:
        name = group.name or group.typer_instance.info.name
        paths.add((*prefix, name))
        paths |= typer_paths(group.typer_instance, (*prefix, name))
    return paths


COMMANDS = walk()
FUZZED = [c for c in COMMANDS if c.path not in SKIPPED]
ALL_OPTIONS = sorted({(o, p.kind) for c in COMMANDS for p in c.params if p.is_option for o in p.opts})


def test_every_command_is_fuzzed():
    walked = {c.path for c in COMMANDS}
    assert walked == typer_paths(app), "the Click walk and the Typer registrations disagree"
    assert {c.path for c in FUZZED} | set(SKIPPED) == walked
    assert set(SKIPPED) <= walked, "a skipped command no longer exists"
    for table in (CHECK_COMMANDS, INVALID_ONLY, SAFE_OUTPUTS):
        assert set(table) <= walked, f"{table}: names a command that no longer exists"
    for path, name in {**INVALID_ONLY, **SAFE_OUTPUTS}.items():
        assert any(p.name == name for c in COMMANDS if c.path == path for p in c.params), (path, name)


# ---- value strategies ---------------------------------------------------------------------------

def _junk_text() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(TEXT_EDGES), _TEXT, _CONTROL, _TEXT.map(lambda s: s + "\x07" + s),
                     st.sampled_from(INTS + FLOATS))


def _number(kind: str) -> st.SearchStrategy[str]:
    if kind == "int":
        return st.one_of(st.sampled_from(INTS), st.integers(-2**70, 2**70).map(str))
    return st.one_of(st.sampled_from(FLOATS), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                     st.integers(-10**12, 10**12).map(str))


def _near_miss(valid: str) -> st.SearchStrategy[str]:
    """A wrong choice close to a right one: case, whitespace, a control character, doubled, cut."""
    return st.sampled_from([valid.upper(), valid.lower() + " ", " " + valid, valid + "\x01", valid * 2,
                            valid[:-1], valid + ",", valid.replace("=", "==")])


class Example:
    """The files one example may point at, in a folder of its own (also its working directory)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.blocker = folder / "plain-file"
        self.blocker.write_text("x")
        self.made: set[str] = set()  # the absolute paths path() gave out

    def contained(self, value: str) -> str:
        """Any value may become a path an output is written to: an absolute one only if path() made
        it (this folder, /proc, /dev/null), anything else relative to this folder (the working
        directory), at most two levels up (still the test's temporary folder)."""
        if value.startswith("/") and value not in self.made:
            value = "." + value
        if value.startswith("~"):
            value = "./" + value
        return value if value.count("..") <= 2 else value.replace("..", "__")

    def path(self, data: st.DataObject) -> str:
        made = self._path(data)
        if made.startswith("/"):
            self.made.add(made)
        return made

    def _path(self, data: st.DataObject) -> str:
        choice = data.draw(st.sampled_from(["missing", "folder", "under-file", "proc", "junk", "empty", "text",
                                            "long-name", "dot", "cwd-name", "device", "big", "loop",
                                            "folder-named-file"]), label="path kind")
        suffix = data.draw(st.sampled_from(["", ".toml", ".json", ".jsonl", ".png", ".svg", ".pt", ".ptx", ".md"]),
                           label="suffix")
        if choice == "missing":
            return str(self.folder / f"no-such{suffix}")
        if choice == "folder":
            return str(self.folder)
        if choice == "under-file":
            return str(self.blocker / f"x{suffix}")
        if choice == "proc":
            return f"/proc/fmhactl-fuzz{suffix}"  # unwritable for root too
        if choice == "long-name":
            return str(self.folder / ("n" * 300 + suffix))
        if choice == "dot":
            return "."
        if choice == "device":
            return "/dev/null"  # stat says 0 bytes, as /dev/zero does (whose reading must be capped)
        if choice == "loop":
            loop = self.folder / f"loop{suffix}"
            if not loop.is_symlink():
                loop.symlink_to(loop.name)  # ELOOP on every open
            return str(loop)
        if choice == "folder-named-file":
            folder = self.folder / f"a-folder{suffix or '.d'}"
            folder.mkdir(exist_ok=True)
            return str(folder)
        if choice == "big":
            big = self.folder / f"big{suffix}"
            with big.open("wb") as f:
                f.truncate(BIG_FILE_BYTES)  # sparse: no disk, past every input cap
            return str(big)
        if choice == "cwd-name":
            return data.draw(_TEXT.filter(lambda s: s and not s.startswith("-")), label="relative name") + suffix
        path = self.folder / f"input-{len(list(self.folder.iterdir()))}{suffix}"
        if choice == "junk":
            path.write_bytes(data.draw(st.binary(max_size=300), label="junk bytes"))
        elif choice == "empty":
            path.write_bytes(b"")
        else:
            body = data.draw(st.one_of(_TEXT, st.sampled_from(['{"a": 1}', "[]", "[[step]]\ntype = 'x'\n",
                                                                "[[product]]\nseq_q = -1\n", "nan", "{",
                                                                '{"out": 1, "lse": 2}', ".version 8.7\n"])),
                             label="file text")
            path.write_text(body)
        return str(path)


_PATHLIKE = {"--out", "--svg", "--junit", "--json-out", "--dump", "name", "source", "segments", "sources", "--raw",
             "--save-raw", "--plot", "--png", "--milestones", "--evidence", "--grid", "folder", "--screenshot"}


def _valid(param: Param, command: Command) -> list[str]:
    """Values the parameter accepts: its default, or VALID by name; none for INVALID_ONLY ones."""
    if INVALID_ONLY.get(command.path) == param.name:
        return []
    valid = list(VALID.get(param.name, []))
    default = param.default
    if default not in (None, False, True, "") and not isinstance(default, (list, tuple)):
        valid.append(str(default))
    return valid


def _value(data: st.DataObject, example: Example, param: Param, command: Command, *, good: bool = False) -> str:
    """One malformed, extreme or (now and then, or always when good and one is known) valid value."""
    valid = _valid(param, command)
    sources = ["junk"]
    if param.kind in ("int", "float"):
        sources.append("number")
    if param.kind == "path" or param.name in _PATHLIKE:
        sources.append("path")
    if valid:
        sources += ["near miss", "valid"]
    source = "valid" if good and valid else data.draw(st.sampled_from(sources), label=f"{param.name} source")
    if source == "path":
        value = example.path(data)
    elif source == "number":
        value = data.draw(_number(param.kind), label=param.name)
    elif source == "near miss":
        value = data.draw(st.sampled_from(valid).flatmap(_near_miss), label=param.name)
    elif source == "valid":
        value = data.draw(st.sampled_from(valid), label=param.name)
    else:
        value = data.draw(_junk_text(), label=param.name)
    if INVALID_ONLY.get(command.path) == param.name and value in VALID.get(param.name, []):
        value += "\x01"
    if param.name == "--ray" and _ADDRESS.match(value.strip()):
        value = value.replace(":", "")
    return example.contained(value)


def _occurrence(data: st.DataObject, example: Example, param: Param, command: Command, *, good: bool = False
                ) -> list[str]:
    if param.kind == "flag":
        return [data.draw(st.sampled_from(param.opts), label=param.name)]
    values = [_value(data, example, param, command, good=good) for _ in range(param.nargs)]
    if not param.is_option:
        return values
    spelling = data.draw(st.sampled_from([o for o in param.opts if o.startswith("-")]), label="spelling")
    if spelling.startswith("--") and param.nargs == 1 and data.draw(st.booleans(), label="= form"):
        return [f"{spelling}={values[0]}"]
    return [spelling, *values]


@dataclass
class Invocation:
    args: list[str]
    empty_paths: list[str]  # path parameters whose value in effect is "" (never a usable path)


def invocation(data: st.DataObject, example: Example, command: Command) -> Invocation:
    """argv for one example. Half the examples are scattershot (any parameter left out, given once or
    twice, malformed; options of other commands; stray arguments); the other half put one bad value
    into one parameter and valid values (or none) into the rest, so the check behind the parser is
    what answers."""
    target = None
    if command.params and data.draw(st.booleans(), label="one bad value"):
        target = data.draw(st.sampled_from(command.params), label="the bad one")
    options: list[list[str]] = []
    arguments: list[str] = []
    empty_paths: list[str] = []
    for param in command.params:
        must = INVALID_ONLY.get(command.path) == param.name
        if target is not None and param is not target:
            good = bool(_valid(param, command)) or param.kind == "flag"
            how = "once" if must or param.required else "omit"
            if how == "omit" and good and data.draw(st.booleans(), label=f"{param.name}?"):
                how = "once"
        else:
            good = False
            how = "once" if must or param is target else data.draw(
                st.sampled_from(["omit", "omit", "once", "once", "twice"]), label=f"{param.name}?")
            if how == "omit" and not (param.required and data.draw(st.integers(0, 4), label="keep required") > 0):
                continue
        if how == "omit":
            continue
        times = 2 if how == "twice" else 1
        if param.multiple and not param.is_option and target is None:
            times = data.draw(st.integers(1, 3), label=f"{param.name} count")
        values = []
        for _ in range(times):
            given_ = _occurrence(data, example, param, command, good=good)
            (options.append(given_) if param.is_option else arguments.extend(given_))
            values.append(given_[0].partition("=")[2] if param.is_option and len(given_) == 1 else given_[-1])
        pathlike = param.kind == "path" or param.name in _PATHLIKE
        if pathlike and param.kind != "flag" and ("" in values if param.multiple else values[-1] == ""):
            empty_paths.append(param.name)
    if target is None:
        for _ in range(data.draw(st.sampled_from([0] * 6 + [1, 2]), label="foreign options")):
            spelling, kind = data.draw(st.sampled_from(ALL_OPTIONS), label="foreign option")
            options.append([spelling] if kind == "flag"
                           else [spelling, example.contained(data.draw(_junk_text(), label="its value"))])
        if data.draw(st.integers(0, 9), label="stray argument") == 0:
            arguments.append(example.contained(data.draw(_junk_text(), label="stray")))
    if SAFE_OUTPUTS.get(command.path) and not any(o[0].split("=")[0] == SAFE_OUTPUTS[command.path] for o in options):
        options.append([SAFE_OUTPUTS[command.path], str(example.folder / "out")])
    if not param_order_kept(options):
        options = data.draw(st.permutations(options), label="option order")
    root: list[str] = []
    if target is None and data.draw(st.integers(0, 7), label="root option") == 0:
        root = ["--project", example.path(data)]
    return Invocation([*root, *command.path, *[a for o in options for a in o], *arguments], empty_paths)


def param_order_kept(options: list[list[str]]) -> bool:
    """A non-repeatable option given twice: the last one is in effect, so their order is kept."""
    spellings = [o[0].partition("=")[0] for o in options]
    return len(set(spellings)) != len(spellings)


# ---- running one invocation -----------------------------------------------------------------------

class Hang(BaseException):
    """Raised by the timer: a BaseException, so no `except Exception` in the product swallows it."""


def _rows(home: Path) -> list[tuple]:
    db = home / "results.sqlite"
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db) as conn:
            return conn.execute("SELECT * FROM results ORDER BY id").fetchall()
    except sqlite3.Error:
        return []


def _on_timer(_signum: int, _frame: Any) -> None:
    raise Hang()


HUNG: set[tuple[str, ...]] = set()  # commands that hung once: hypothesis's shrinking waits 3 s, not 20, on them


def run_bounded(args: list[str], cwd: Path, command: Command) -> Any:
    """CliRunner with FMHACTL_ASSUME_NO_GPU, in cwd, under a timer that keeps firing until the run ends;
    the environment (commands set FMHACTL_* switches in os.environ) is restored afterwards."""
    environ, here = dict(os.environ), os.getcwd()
    limit = min(TIMEOUT_S, 3.0) if command.path in HUNG else TIMEOUT_S
    previous = signal.signal(signal.SIGALRM, _on_timer)
    os.chdir(cwd)
    signal.setitimer(signal.ITIMER_REAL, limit, 1.0)
    try:
        return CliRunner().invoke(app, optional_option_values(args),
                                  env={"FMHACTL_ASSUME_NO_GPU": "1", "FMHACTL_PROJECT": None, "FMHACTL_DEBUG": None})
    except Hang:
        HUNG.add(command.path)
        pytest.fail(f"no answer within {limit:g} s: fmhactl {args!r}")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(here)
        os.environ.clear()
        os.environ.update(environ)


def _bare_group(command: Command, args: list[str]) -> bool:
    """A group named with nothing after it (root options aside)."""
    return command.is_group and args[-len(command.path):] == list(command.path)


def check_answer(command: Command, call: Invocation, result: Any, rows_before: list[tuple],
                 rows_after: list[tuple]) -> None:
    args = call.args
    said = (args, result.exit_code, result.output[-2000:])
    escaped = result.exception if not isinstance(result.exception, SystemExit) else None
    assert escaped is None, (*said, repr(escaped))
    assert result.exit_code in (0, 1, 2, 3), said
    assert "Traceback" not in result.output, said
    assert "internal error" not in result.stderr, said
    errors = [ln for ln in result.stderr.splitlines() if ln.startswith("fmhactl: error:")]
    if result.exit_code == 0:
        assert not errors, said
        assert not call.empty_paths, ("an empty path is the working directory in disguise", *said)
    elif result.exit_code == 1:
        marker = CHECK_COMMANDS.get(command.path)
        assert marker is not None and (not marker or marker in args), ("exit 1 from a command that ran no check",
                                                                        *said)
    elif _bare_group(command, args) and result.exit_code == 2 and not errors:
        assert result.stderr.startswith("Usage:"), said  # `fmhactl ptx`: its help on stderr, exit 2, by design
    else:
        assert len(errors) == 1, said
    if result.exit_code == 2:
        assert rows_after == rows_before, ("rows stored on bad input", *said)


@pytest.fixture(scope="module")
def fuzz_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A results store and cache of this module's own: `results import` fills it with the checkout's
    evidence, which other tests sharing the session home should not see."""
    return tmp_path_factory.mktemp("fuzz-home")


@pytest.fixture
def home(fmhactl_home: Path, fuzz_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """fuzz_home in place of conftest's session home (fmhactl_home, which is autouse, is set first)."""
    monkeypatch.setenv("FMHACTL_HOME", str(fuzz_home))
    return fuzz_home


SLOWEST: list[tuple[float, list[str]]] = []
OUTCOMES: dict[str, int] = {}


def _outcome(result: Any) -> str:
    """exit code and, for a usage error, that it stopped in the parser (what reached a service is the rest)."""
    usage = ("No such option", "Missing", "unexpected extra", "requires an argument", "is not a valid",
             "Option '", "No such command")
    parser = result.exit_code == 2 and any(u in result.stderr for u in usage)
    return f"exit {result.exit_code}{' (parser)' if parser else ''}"


@pytest.mark.parametrize("command", FUZZED, ids=[" ".join(c.path) for c in FUZZED])
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data())
def test_malformed_input_is_answered_in_one_line(home, tmp_path, command, data):
    example = Example(Path(tempfile.mkdtemp(dir=tmp_path)))
    call = invocation(data, example, command)
    before = _rows(home)
    started = time.monotonic()
    result = run_bounded(call.args, example.folder, command)
    SLOWEST.append((time.monotonic() - started, call.args))
    OUTCOMES[_outcome(result)] = OUTCOMES.get(_outcome(result), 0) + 1
    check_answer(command, call, result, before, _rows(home))


@pytest.fixture(scope="module", autouse=True)
def _report_slowest(request: pytest.FixtureRequest):
    """With -s (or FMHACTL_FUZZ_EXAMPLES raised), say where the time went."""
    yield
    if SLOWEST:
        SLOWEST.sort(key=lambda t: -t[0])
        total = sum(t for t, _ in SLOWEST)
        lines = [f"{len(SLOWEST)} invocations, {total:.1f} s in the CLI; {sorted(OUTCOMES.items())}; slowest:"]
        lines += [f"  {t:6.2f} s  {args!r}"[:300] for t, args in SLOWEST[:8]]
        print("\n" + "\n".join(lines))
