"""Mutations for the corruption fuzz tests (tests/*/test_*_fuzz.py).

Each test takes a valid artifact the product made (a results store, an evidence file, a build
cache entry, a project file, a scenario, a raw trace), damages it with one of the mutations
below, and runs the product's reading path. The property is always one of: the damaged artifact is
still valid and used correctly, or it is detected (exit 2 for a user's file, 3 for the home's
store or cache) in one `fmhactl: error:` line, with nothing recorded before lost.

Hypothesis drives the choices (`st.data()`), so a failure shrinks to a small mutation and prints
it; FMHACTL_FUZZ_EXAMPLES raises the example count of every fuzz test for a long hunt.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import shutil
import signal
import string
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis.control import currently_in_test_context
from hypothesis import strategies as st


def fuzz_settings(default: int) -> settings:
    """default examples (FMHACTL_FUZZ_EXAMPLES overrides), no deadline, fixtures allowed."""
    count = int(os.environ.get("FMHACTL_FUZZ_EXAMPLES", default))
    return settings(max_examples=count, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.data_too_large])


class Artifact:
    """A valid artifact for the fuzz tests, with a short repr (hypothesis prints its arguments)."""

    def __init__(self, name: str, **parts: Any) -> None:
        self.name = name
        self.__dict__.update(parts)

    def __repr__(self) -> str:
        return f"<valid {self.name}>"


# ---- values a damaged file may hold where another was ------------------------------------------

ODD_VALUES: list[Any] = [
    None, True, False, 0, -1, 1, 2**31, 2**53 + 1, 2**63 - 1, -(2**63), 10**30, -(10**30),
    0.5, -0.0, 1e308, -1e308, 1e-320, math.nan, math.inf, -math.inf,
    "", " ", "\x00", "x" * 5000, "\u202e\u00e9\U0001f600", "../../etc/passwd", "NaN", "1", "true", "PASS",
    [], [None], [1, "a", None], ["x"] * 3, {}, {"a": {"b": []}}, {"": None},
]
SQL_SAFE_VALUES = [v for v in ODD_VALUES if not (isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2**63)]

odd_values = st.one_of(st.sampled_from(ODD_VALUES), st.integers(), st.floats(), st.text(max_size=30))


# ---- bytes ------------------------------------------------------------------------------------

BYTE_OPS = ("flip", "truncate", "append", "insert", "delete", "duplicate", "empty", "zeros", "text", "overwrite")


def mutate_bytes(data: st.DataObject, blob: bytes) -> tuple[str, bytes]:
    """One byte-level mutation of blob: (what was done, the damaged bytes)."""
    op = data.draw(st.sampled_from(BYTE_OPS), label="byte op")
    n = len(blob)
    pos = data.draw(st.integers(0, max(n - 1, 0)), label="at")
    if op == "flip" and n:
        count = data.draw(st.integers(1, 8), label="flips")
        out = bytearray(blob)
        for _ in range(count):
            at = data.draw(st.integers(0, n - 1))
            out[at] ^= data.draw(st.integers(1, 255))
        return f"flip {count} bytes from {pos}", bytes(out)
    if op == "truncate":
        return f"truncate at {pos}", blob[:pos]
    if op == "append":
        junk = data.draw(st.binary(min_size=1, max_size=200), label="junk")
        return f"append {junk[:20]!r}", blob + junk
    if op == "insert":
        junk = data.draw(st.binary(min_size=1, max_size=64), label="junk")
        return f"insert {junk[:20]!r} at {pos}", blob[:pos] + junk + blob[pos:]
    if op == "delete":
        size = data.draw(st.integers(1, max(1, n // 4 or 1)))
        return f"delete {size} bytes at {pos}", blob[:pos] + blob[pos + size:]
    if op == "duplicate":
        size = data.draw(st.integers(1, max(1, min(n, 4096))))
        return f"duplicate {size} bytes at {pos}", blob[:pos] + blob[pos:pos + size] * 2 + blob[pos + size:]
    if op == "empty":
        return "empty file", b""
    if op == "zeros":
        size = data.draw(st.integers(1, 4096))
        return f"zero {size} bytes at {pos}", blob[:pos] + b"\0" * min(size, n - pos) + blob[pos + size:]
    if op == "text":
        text = data.draw(st.text(alphabet=string.printable + "\u00e9\u202e", max_size=200), label="text")
        return f"replace with text {text[:20]!r}", text.encode()
    size = data.draw(st.integers(1, 64))
    junk = data.draw(st.binary(min_size=size, max_size=size), label="junk")
    return f"overwrite {size} bytes at {pos}", blob[:pos] + junk + blob[pos + size:]


# ---- trees (parsed JSON / TOML) ----------------------------------------------------------------

def paths_of(tree: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key path of a tree of dicts and lists (the root is ())."""
    out = [prefix]
    if isinstance(tree, dict):
        for key, value in tree.items():
            out += paths_of(value, (*prefix, key))
    elif isinstance(tree, list):
        for index, value in enumerate(tree):
            out += paths_of(value, (*prefix, index))
    return out


def _get(tree: Any, path: tuple) -> Any:
    for part in path:
        tree = tree[part]
    return tree


TREE_OPS = ("delete", "replace", "rename", "duplicate", "swap", "wrap", "unwrap", "add")


def mutate_tree(data: st.DataObject, tree: Any, values: st.SearchStrategy = odd_values) -> tuple[str, Any]:
    """One structural mutation of a copy of tree: a key deleted, renamed or added, a value of
    another type, a list item duplicated, two siblings swapped, a value wrapped in a list."""
    tree = json.loads(json.dumps(tree))  # a deep copy (NaN survives: json allows it by default)
    paths = [p for p in paths_of(tree) if p]
    if not paths:
        return "replace the whole document", data.draw(values, label="value")
    path = data.draw(st.sampled_from(paths), label="path")
    parent, last = _get(tree, path[:-1]), path[-1]
    op = data.draw(st.sampled_from(TREE_OPS), label="tree op")
    where = ".".join(map(str, path))
    if op == "delete":
        del parent[last]
    elif op == "replace":
        value = data.draw(values, label="value")
        parent[last] = value
        return f"{where} = {value!r:.60}", tree
    elif op == "rename" and isinstance(parent, dict):
        name = data.draw(st.one_of(st.sampled_from(["", "x", last.upper(), last + "_", "type", "id", "\u00e9"]),
                                   st.text(max_size=10)), label="new name")
        value = parent.pop(last)
        parent[name] = value
        return f"rename {where} to {name!r}", tree
    elif op in ("duplicate", "rename") and isinstance(parent, list):
        parent.insert(last, json.loads(json.dumps(parent[last])))
    elif op == "swap":
        keys = list(parent.keys()) if isinstance(parent, dict) else list(range(len(parent)))
        other = data.draw(st.sampled_from(keys), label="other")
        parent[last], parent[other] = parent[other], parent[last]
        return f"swap {where} with {other}", tree
    elif op == "wrap":
        parent[last] = [parent[last]]
    elif op == "unwrap" and isinstance(parent[last], (list, dict)) and parent[last]:
        inner = parent[last]
        parent[last] = inner[0] if isinstance(inner, list) else next(iter(inner.values()))
    elif op == "add" and isinstance(parent, dict):
        name = data.draw(st.one_of(st.sampled_from(["extra", "zz", "type", "schema_version"]), st.text(max_size=8)))
        value = data.draw(values, label="value")
        parent[name] = value
        return f"add {'.'.join(map(str, path[:-1]))}.{name} = {value!r:.60}", tree
    else:
        parent[last] = data.draw(values, label="value")
        return f"{where} = {parent[last]!r:.60}", tree
    return f"{op} {where}", tree


# ---- TOML out (the tests write mutated trees back as TOML) -------------------------------------

def _toml_string(text: str) -> str:
    out = json.dumps(text, ensure_ascii=False)
    return out.replace("\x7f", "\\u007f")


def toml_value(value: Any) -> str:
    """A TOML value for any tree (None has no TOML form: written as the string "None", one more
    odd value). Ints beyond 64 bits and lone surrogates give invalid TOML: more damage, still fine."""
    if value is None:
        return '"None"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_toml_string(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value))


def to_toml(tree: Any) -> str:
    """A document of top-level `key = inline value` lines (a non-table root: one odd line)."""
    if not isinstance(tree, dict):
        return f"root = {toml_value(tree)}\n"
    return "".join(f"{_toml_string(str(k))} = {toml_value(v)}\n" for k, v in tree.items())


# ---- the file system --------------------------------------------------------------------------

FS_OPS = ("folder", "symlink_loop", "dangling_symlink", "missing")


def damage_path(op: str, path: Path) -> str:
    """Put something that is not a readable file where `path` is: a folder, a symlink loop, a
    dangling symlink, or nothing."""
    if path.is_dir() and not path.is_symlink():
        import shutil

        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
    if op == "folder":
        path.mkdir()
        (path / "inside").write_text("x")
    elif op == "symlink_loop":
        os.symlink(path.name, path)
    elif op == "dangling_symlink":
        os.symlink(path.with_name(path.name + ".nowhere"), path)
    return f"{op} at {path.name}"


# ---- one example's folder ----------------------------------------------------------------------

@contextlib.contextmanager
def example_folder(name: str) -> Iterator[Path]:
    """A fresh temporary folder for one hypothesis example, removed after it (pass or fail).
    pytest's tmp_path is one folder for every example of a test, so an example would meet the
    files the one before it damaged."""
    work = Path(tempfile.mkdtemp(prefix=f"fmhactl-fuzz-{name}-"))
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


# ---- the property ------------------------------------------------------------------------------

class Hang(Exception):
    """The reading path ran past its time limit (the property says: never a hang)."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise Hang in the main thread after `seconds` of wall time (SIGALRM)."""
    def ring(signum: int, frame: object) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("fmhactl: error:")]


def assert_clean_outcome(result: Any, allowed: tuple[int, ...], what: str, command: str = "run") -> None:
    """A CliRunner result (or CompletedProcess): an allowed exit code, no traceback, no internal
    error, and exactly one error line when it failed. `command` labels the outcome in
    `--hypothesis-show-statistics`."""
    code = getattr(result, "exit_code", getattr(result, "returncode", None))
    if currently_in_test_context():  # a plain regression test calls this too
        event(f"{command}: exit {code}")
    exception = getattr(result, "exception", None)
    assert exception is None or isinstance(exception, SystemExit), (what, repr(exception))
    stderr = result.stderr
    output = (getattr(result, "output", "") or "") + (getattr(result, "stdout", "") or "") + stderr
    assert "Traceback" not in output, (what, output[-2000:])
    assert "internal error" not in stderr, (what, stderr[-2000:])
    assert code in allowed, (what, code, stderr[-2000:])
    if code != 0:
        assert len(error_lines(stderr)) == 1, (what, stderr[-2000:])
