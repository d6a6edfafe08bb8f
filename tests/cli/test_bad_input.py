"""Issue 10's defect classes, each fed through the real CLI: one stderr line naming the input and
the rule, the documented exit code, no traceback, and nothing stored on bad input."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fmhactl.cli.app import app
from fmhactl.errors import BadInput
from fmhactl.results.store import ResultRow, ResultStore


def invoke(*args: str, env: dict | None = None):
    return CliRunner().invoke(app, list(args), env=env)


def one_line(result, code: int, *fragments: str) -> str:
    assert result.exit_code == code, (result.exit_code, result.output)
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("fmhactl: error:"), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert "Traceback" not in result.output
    return lines[0]


def rows_in(home: Path) -> list[tuple]:
    db = home / "results.sqlite"
    if not db.exists():
        return []
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT id, kind, variant, status FROM results ORDER BY id").fetchall()


# ---- cache: content hash checked on every hit -------------------------------------------------

def _cache_entry(home: Path) -> tuple[Path, Path]:
    cubins = sorted((home / "cache" / "ref" / "sm_90a").glob("*.cubin"))
    assert cubins, "ref sm_90a was not built"
    return cubins[-1], cubins[-1].with_suffix(".json")


@pytest.mark.parametrize("damage", ["truncate cubin", "flip cubin byte", "garble meta", "delete meta"])
def test_damaged_cache_entry_is_rebuilt_with_one_warning_never_served(fmhactl_home, damage):
    assert invoke("build", "ref", "--arch", "sm_90a").exit_code == 0
    cubin, meta = _cache_entry(fmhactl_home)
    good = cubin.read_bytes()
    if damage == "truncate cubin":
        cubin.write_bytes(good[: len(good) // 2])
    elif damage == "flip cubin byte":
        cubin.write_bytes(good[:100] + bytes([good[100] ^ 0xFF]) + good[101:])
    elif damage == "garble meta":
        meta.write_text("{not json")
    else:
        meta.unlink()
    result = invoke("build", "ref", "--arch", "sm_90a", "--json")
    assert result.exit_code == 0, result.output
    warnings = [ln for ln in result.stderr.splitlines() if ln.startswith("fmhactl: warning:")]
    assert len(warnings) == 1 and "damaged" in warnings[0] and "rebuilding" in warnings[0]
    built = json.loads(result.stdout)
    assert built[0]["cache_hit"] is False
    assert cubin.read_bytes() == good  # rebuilt from source, identical to the good build
    again = json.loads(invoke("build", "ref", "--arch", "sm_90a", "--json").stdout)
    assert again[0]["cache_hit"] is True


# ---- results store and FMHACTL_HOME ------------------------------------------------------------

def test_corrupt_results_db_is_exit_3_naming_it_and_left_untouched(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    db = home / "results.sqlite"
    db.write_bytes(b"this is not a database" * 100)
    before = db.read_bytes()
    line = one_line(invoke("results", env={"FMHACTL_HOME": str(home)}), 3, str(db))
    assert "not an SQLite database" in line or "unusable" in line
    assert db.read_bytes() == before


def test_foreign_sqlite_db_is_exit_3_and_never_written(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    db = home / "results.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE photos (id INTEGER, name TEXT)")
        conn.execute("INSERT INTO photos VALUES (1, 'cat')")
    before = db.read_bytes()
    one_line(invoke("build", "ref", "--arch", "sm_90a", env={"FMHACTL_HOME": str(home)}), 3, str(db),
             "not an fmhactl results store")
    assert db.read_bytes() == before


def test_newer_store_schema_is_exit_3_and_rows_survive(tmp_path):
    home = tmp_path / "home"
    with ResultStore(home / "results.sqlite") as store:
        store.add(ResultRow(kind="build", variant="ref", arch="sm_90a", mode="compile-only", status="OK"))
    with sqlite3.connect(home / "results.sqlite") as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    one_line(invoke("results", env={"FMHACTL_HOME": str(home)}), 3, "schema version 99")
    assert len(rows_in(home)) == 1


@pytest.mark.parametrize("make_home", ["a file", "under a file", "empty string"])
def test_unusable_fmhactl_home_is_exit_3(tmp_path, make_home):
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    home = {"a file": str(blocker), "under a file": str(blocker / "home"), "empty string": " "}[make_home]
    one_line(invoke("results", env={"FMHACTL_HOME": home}), 3, "FMHACTL_HOME")


def test_read_only_fmhactl_home_is_exit_3():
    """/proc/self is a folder that no one can create files in, root included (CI runs as root, where
    a chmod 555 folder stays writable and the old form of this test always skipped)."""
    one_line(invoke("results", env={"FMHACTL_HOME": "/proc/self"}), 3, "/proc/self is not writable")
    one_line(invoke("results", env={"FMHACTL_HOME": "/proc/fmhactl-home"}), 3, "cannot be created")


# ---- output paths checked before any work ------------------------------------------------------

@pytest.mark.parametrize("args_for", [
    lambda bad: ["scenario", "run", "cpu", "--junit", bad],
    lambda bad: ["scenario", "run", "cpu", "--json-out", bad],
    lambda bad: ["bench", "ref", "--shape", "d=64", "--plot", bad],
    lambda bad: ["profile", "ref", "--shape", "d=64", "--png", bad],
    lambda bad: ["status", "--out", bad],
    lambda bad: ["dump", "sm100_tma_s2_smem", "--shape", "d=64", "--at", "S", "--out", bad],
    lambda bad: ["trace", "sm100_tma_s2_tmem", "--shape", "t=128,s=512,d=128", "--out", bad],
    lambda bad: ["trace", "sm100_tma_s2_tmem", "--shape", "t=128,s=512,d=128", "--save-raw", bad],
    lambda bad: ["layout", "smem", "--svg", bad],
    lambda bad: ["tma", "check", "--preset", "seed002", "--svg", bad],
    lambda bad: ["tui", "--screen", "tmem", "--screenshot", bad],
])
@pytest.mark.parametrize("kind", ["a folder", "under a file", "under /proc"])
def test_unwritable_output_paths_fail_before_any_work(fmhactl_home, tmp_path, args_for, kind):
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    suffix = ".svg" if args_for("X")[0] in ("layout", "tma", "tui") else ".png"
    bad = {"a folder": str(tmp_path), "under a file": str(blocker / "out" / f"x{suffix}"),
           "under /proc": f"/proc/x{suffix}"}[kind]  # /proc: unwritable for root too
    if args_for("X")[0] == "status" and kind == "a folder":
        bad = str(blocker)  # --out is a folder option: a file is the wrong thing there
    before = rows_in(fmhactl_home)
    result = invoke(*args_for(bad), env={"FMHACTL_ASSUME_NO_GPU": "1"})
    one_line(result, 2)
    assert rows_in(fmhactl_home) == before


# ---- declared schemas for TOML/JSON inputs -----------------------------------------------------

def _write(tmp_path: Path, name: str, body: str | bytes) -> str:
    path = tmp_path / name
    path.write_bytes(body if isinstance(body, bytes) else body.encode())
    return str(path)


@pytest.mark.parametrize("body, fragments", [
    ('[[step]]\ntype = "build"\nvariants = ["nope"]\n', ("step[0]", "unknown variant 'nope'")),
    ('[[step]]\ntype = "verify"\nvariants = ["ref"]\ngrid = "nope"\n', ("unknown grid 'nope'",)),
    ('[[step]]\ntype = "profile"\nvariant = "ref"\nshape = "d=64"\nrecipe = "nope"\n', ("unknown profile recipe",)),
    ('[[step]]\ntype = "verify"\nvariants = ["ref"]\nshapes = ["d=64"]\ngpu = "false"\n', ("step[0].gpu", "boolean")),
    ('[[step]]\ntype = "build"\nall = true\ncolour = "red"\n', ("step[0].colour", "unknown field")),
    ('[[step]]\ntype = "bench"\nvariant = "ref"\nshapes = []\n', ("step[0].shapes",)),
    ('[[step]]\ntype = "bench"\nvariant = "ref"\nshapes = ["d=63"]\n', ("step[0] (bench)", "head_dim 63 not supported")),
    ('[[step]]\ntype = "verify"\nvariants = ["ref"]\nshapes = ["d=64"]\ntimeout_s = -1\n', ("step[0].timeout_s",)),
    ('[[step]\n', (":1: malformed TOML",)),
    (b'name = "\xff\xfe"\n[[step]]\ntype = "build"\nall = true\n', ("not UTF-8",)),
])
def test_malformed_scenarios_are_exit_2_with_the_key_path(fmhactl_home, tmp_path, body, fragments):
    before = rows_in(fmhactl_home)
    one_line(invoke("scenario", "run", _write(tmp_path, "s.toml", body)), 2, *fragments)
    assert rows_in(fmhactl_home) == before


@pytest.mark.parametrize("body, fragments", [
    ("[[product]]\nseq_q = []\n", ("product[0].seq_q", "empty axis")),
    ("[[product]]\nwarps = 4\n", ("product[0].warps", "unknown config field")),
    ("[[product]]\nheads = 4\nheads_kv = 0\n", ("heads_kv", "positive")),
    ("[[product]]\nheads = 4\nheads_kv = 3\n", ("multiple of heads_kv",)),
    ("[[product]]\nseq_q = 1.5\n", ("product[0].seq_q",)),
    ("[[product]]\ncausal = \"false\"\n", ("causal must be true or false",)),
    ("[[product]]\nwindow_left = -5\n", ("product[0]", "window_left must be -1")),
    ("[[product]]\nsink = \"yes\"\n", ("sink must be true or false",)),
    ("[[product]]\ncausal = true\nwindow_right = 4\n", ("contradicts causal",)),
    (f"[[product]]\nseq_q = {list(range(1, 201))}\nseq_k = {list(range(1, 201))}\n", ("more than 20000 configs",)),
    (b"[[product]]\nseq_q = 1 # \xff\n", ("not UTF-8",)),
    ("name = 'x'\n", ("at least one [[product]]",)),
])
def test_malformed_grids_are_exit_2(fmhactl_home, tmp_path, body, fragments):
    one_line(invoke("verify", "ref", "--grid", _write(tmp_path, "g.toml", body)), 2, *fragments)


@pytest.mark.parametrize("body, fragments", [
    ('[[milestone]]\nid = "A"\ntitle = "a"\nvariants = ["ref"]\ndepends = ["B"]\n'
     '[[milestone]]\nid = "B"\ntitle = "b"\nvariants = ["ref"]\ndepends = ["A"]\n', ("dependency cycle", "A -> B -> A")),
    ('[[milestone]]\nid = "A"\ntitle = "a"\nvariants = ["ref"]\ngrids = ["nope"]\n', ("unknown grid 'nope'",)),
    ('[[milestone]]\nid = "A"\ntitle = "a"\nvariants = []\n', ("milestone[0]", "names no variants and no checks")),
    ('[[milestone]]\nid = "a/b"\ntitle = "a"\nvariants = ["ref"]\n', ("milestone[0].id",)),
    ('', ("milestone",)),
])
def test_malformed_milestones_are_exit_2(tmp_path, body, fragments):
    one_line(invoke("status", "--milestones", _write(tmp_path, "m.toml", body), "--out", str(tmp_path / "o")),
             2, *fragments)


# ---- status --check on missing, empty or unparsable status files -------------------------------

@pytest.mark.parametrize("content, code, fragment", [
    (None, 1, "missing"),
    ("", 2, "is empty"),
    ("{garbage", 2, ":1: malformed JSON"),
    ('{"M0": {"state": "SORT OF"}}', 2, "states.M0.state"),
    ("[]", 2, "non-empty JSON object"),
])
def test_status_check_fails_on_bad_status_files(tmp_path, content, code, fragment):
    out = tmp_path / "out"
    assert invoke("status", "--out", str(out)).exit_code == 0
    state = out / "milestones" / "status.json"
    if content is None:
        state.unlink()
    else:
        state.write_text(content)
    one_line(invoke("status", "--check", "--out", str(out)), code, fragment)


def test_status_check_fails_on_an_empty_milestone_page(tmp_path):
    out = tmp_path / "out"
    assert invoke("status", "--out", str(out)).exit_code == 0
    (out / "milestones" / "M0.md").write_text("")
    one_line(invoke("status", "--check", "--out", str(out)), 1, "M0.md: empty")


# ---- numeric options range-checked, sizes capped ------------------------------------------------

@pytest.mark.parametrize("args, fragments", [
    (["verify", "ref", "--shape", "d=64", "--timeout", "0"], ("--timeout", "> 0")),
    (["verify", "ref", "--shape", "d=64", "--timeout", "nan"], ("--timeout", "finite")),
    (["verify", "ref", "--shape", "d=64", "--timeout", "inf"], ("--timeout", "finite")),
    (["verify", "ref", "--shape", "d=64", "--timeout", "-5"], ("--timeout",)),
    (["run", "ref", "--shape", "d=64", "--timeout", "1e300"], ("--timeout", "at most")),
    (["verify", "ref", "--shape", "t=3000000000,d=64"], ("int32",)),
    (["verify", "ref", "--shape", "b=65536,h=128,t=4096,s=4096,d=128"], ("2^40", "every kernel")),
    # a K of 128 x 32768 x 512 elements (2^31) is past every 32-bit variant: one line naming the rule
    (["verify", "sm100_tma_s2_tmem", "--shape", "b=128,h=64,hkv=1,t=1,s=32768,d=512"], ("32-bit indexing",)),
    (["verify", "sm90_persistent", "--shape", "b=65536,h=65536,t=1,s=1,d=64"], ("int tile index",)),
    (["verify", "ref", "--shape", "h=6,hkv=4,d=64"], ("multiple of heads_kv",)),
    (["verify", "ref", "--shape", "h=6,hkv=0,d=64"], ("heads_kv must be a positive integer",)),
    (["verify", "ref", "--shape", "d=64,d=128"], ("given twice",)),
    (["verify", "ref", "--shape", "d=64", "--shape", "d=64"], ("given twice",)),
    (["verify", "ref", "--shape", "d=64,zz=1"], ("unknown shape field 'zz'",)),
    (["verify", "ref", "--shape", "d=" + "9" * 500], ("at most 400",)),
    (["verify", "ref", "--seed", "-1", "--shape", "d=64"], ("--seed",)),
    (["bench", "ref", "--shape", "d=64", "--iters", "0"], ("--iters",)),
    (["bench", "ref", "--shape", "d=64", "--warmup", "-1"], ("--warmup",)),
    (["bench", "ref", "--shape", "d=64", "--baseline", "fastest"], ("unknown baseline 'fastest'",)),
    (["results", "--limit", "-1"], ("--limit",)),
    (["results", "--limit", "99999999999"], ("--limit",)),
    (["results", "--kind", "lunch"], ("--kind must be one of",)),
    (["results", "--status", "meh"], ("--status must be one of",)),
    (["results", "--since", "yesterday"], ("--since", "ISO date")),
    (["results", "--since", "2026-12-01", "--until", "2026-01-01"], ("earlier",)),
    (["profile", "ref", "--shape", "d=64", "--warmup", "5000"], ("--warmup",)),
    (["dump", "sm100_direct_tmem", "--shape", "d=64", "--at", "X"], ("--at", "unknown checkpoint")),
    (["dump", "ref", "--shape", "d=64", "--at", "P"], ("no checkpoints",)),
    (["verify", "ref", "--timeout", "abc", "--shape", "d=64"], ("--timeout",)),
    (["verify", "ref", "--random", "0"], ("--random", "from 1 to")),
    (["verify", "ref", "--random", "-3"], ("--random",)),
    (["verify", "ref", "--random", "99999999"], ("--random", "from 1 to")),
    (["verify", "ref", "--random", "many"], ("--random",)),
    (["verify", "ref", "--random", "4", "--grid", "smoke"], ("exactly one of", "--random")),
    (["verify", "ref", "--random", "4", "--shape", "d=64"], ("exactly one of",)),
    (["verify", "ref", "--random", "4", "--seed", "-2"], ("--seed",)),
])
def test_numeric_options_and_caps_are_exit_2(fmhactl_home, args, fragments):
    before = rows_in(fmhactl_home)
    one_line(invoke(*args), 2, *fragments)
    assert rows_in(fmhactl_home) == before


# ---- names checked against what exists; long and odd unicode -----------------------------------

@pytest.mark.parametrize("args, fragments", [
    (["verify", "../../etc/passwd", "--shape", "d=64"], ("unknown variant",)),
    (["build", "ref", "ref"], ("named twice",)),
    (["build", "ä" * 5000], ("unknown variant",)),
    (["build", "\u202egnp.exe"], ("unknown variant",)),
    (["profile", "ref", "--shape", "d=64", "--recipe", "../profiles/default"], ("not a path",)),
    (["profile", "ref", "--shape", "d=64", "--recipe", "x" * 300], ("unknown profile recipe",)),
    (["verify", "ref", "--grid", "no/such/grid.toml"], ("grid file",)),
    (["verify", "ref", "--grid", "\U0001F600" * 100], ("not a valid name",)),
    (["scenario", "run", "nul\x01name"], ("unknown scenario",)),
    (["results", "--variant", "a/b"], ("not a valid name",)),
])
def test_names_are_checked_and_odd_text_answered_in_one_line(args, fragments):
    line = one_line(invoke(*args), 2, *fragments)
    assert len(line) < 700  # a 5000-character name is not echoed back whole


def test_usage_errors_are_one_line_too():
    one_line(invoke("verify", "ref", "--bogus"), 2, "No such option")
    one_line(invoke("verify"), 2, "Missing argument")


# ---- found by tests/cli/test_fuzz_every_command.py ----------------------------------------------

# One path component past NAME_MAX (255): pathlib's is_file/is_dir/exists raise OSError for it
# instead of answering False, which surfaced as a traceback (exit 1) wherever a user's path was probed.
@pytest.mark.parametrize("args_for, fragments", [
    (lambda long, out: ["--project", long, "list"], ("--project", "File name too long")),
    (lambda long, out: ["results", "import", long], ("evidence", "File name too long")),
    (lambda long, out: ["results", "export", "--out", long], ("--out", "File name too long")),
    (lambda long, out: ["ptx", "scan", long], ("File name too long",)),
    (lambda long, out: ["init", long], ("init", "File name too long")),
    (lambda long, out: ["scenario", "run", long + ".toml"], ("scenario file", "File name too long")),
    (lambda long, out: ["status", "--milestones", long, "--out", out], ("milestones file", "File name too long")),
    (lambda long, out: ["status", "--out", long, "--check"], ("--out", "File name too long")),
    (lambda long, out: ["verify", "ref", "--grid", long + ".toml"], ("grid file", "File name too long")),
    (lambda long, out: ["merge", long, "--out", out + ".pt"], ("segment file", "File name too long")),
])
def test_a_path_name_too_long_is_bad_input(fmhactl_home, tmp_path, args_for, fragments):
    before = rows_in(fmhactl_home)
    one_line(invoke(*args_for(str(tmp_path / ("n" * 300)), str(tmp_path / "out"))), 2, *fragments)
    assert rows_in(fmhactl_home) == before


@pytest.mark.parametrize("where", ["under a file", "under /proc"])
def test_init_where_no_folder_can_be_made_is_bad_input(tmp_path, where):
    """As every output path: refused before writing, exit 2 (was exit 3 from the first failed write)."""
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    folder = str(blocker / "project") if where == "under a file" else "/proc/fmhactl-project"
    one_line(invoke("init", folder), 2, "init", "cannot be created")


def test_init_on_a_symlink_loop_is_bad_input(tmp_path):
    """Path.resolve raises RuntimeError on a loop: it was an internal error (exit 1)."""
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    one_line(invoke("init", str(loop)), 2, "init", "not a usable folder path")


@pytest.mark.parametrize("args_for", [
    lambda loop: ["layout", "idesc", "decode", "0x08400010", "--svg", loop],
    lambda loop: ["layout", "plan", "sm100_tma_s2_tmem", "-d", "128", "--svg", loop],
    lambda loop: ["tma", "check", "--preset", "seed002", "--svg", loop],
])
def test_an_output_on_a_symlink_loop_is_refused_before_any_work(tmp_path, args_for):
    """exists() answers False for a loop, so the output check passed and the writer's open raised
    ELOOP: an internal error (exit 1) after the work was done."""
    loop = tmp_path / "loop.svg"
    loop.symlink_to("loop.svg")
    one_line(invoke(*args_for(str(loop))), 2, "--svg", "not writable")


def test_status_check_on_a_file_is_bad_input_not_a_missing_page(tmp_path):
    plain = tmp_path / "plain-file"
    plain.write_text("x")
    one_line(invoke("status", "--out", str(plain), "--check"), 2, "not a folder")


@pytest.mark.parametrize("args", [
    ["ptx", "scan", "/dev/zero"],
    ["trace", "sm100_tma_s2_tmem", "--shape", "t=128,s=512,d=128", "--raw", "/dev/zero"],
])
def test_an_endless_input_is_refused_at_its_cap(tmp_path, args):
    """A device reports size 0 and never ends: the read is capped, not the stat. Run as a process
    with its memory capped, so a reader that takes it whole ends in MemoryError, not the machine's OOM."""
    import resource
    import subprocess
    import sys

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (6 << 30, 6 << 30))

    done = subprocess.run([sys.executable, "-m", "fmhactl", *args], capture_output=True, text=True, timeout=120,
                          preexec_fn=cap_memory, env={**os.environ, "FMHACTL_ASSUME_NO_GPU": "1",
                                                      "FMHACTL_HOME": str(tmp_path / "home")})
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("fmhactl: error:") and "/dev/zero" in lines[0], done.stderr
    assert "more than" in lines[0]


@pytest.mark.parametrize("address", ["abc", "a:b", "[::1]:6379x", "ray://"])
def test_a_malformed_ray_address_is_bad_input_before_ray_is_asked(address):
    """Ray called these an unreachable cluster (exit 3)."""
    one_line(invoke("verify", "ref", "--shape", "d=64", "--ray", address, env={"FMHACTL_ASSUME_NO_GPU": "1"}), 2,
             "--ray", "HOST:PORT")


@pytest.mark.parametrize("address", ["x:99999", "h:0", "a b:1", "\x01:1"])
def test_a_ray_address_that_cannot_exist_is_refused_by_the_placement(address):
    """Ray waited on these for minutes (a port out of range, a host with a space): checked by the
    placement itself here, so that a regression fails at once instead of hanging the test."""
    from fmhactl.services.placement import placement_from_options

    with pytest.raises(BadInput, match="HOST:PORT"):
        placement_from_options(None, address)
    assert placement_from_options(None, "head-node.local:6379") is not None


def _closed_port() -> int:
    """A local port nothing listens on (bound for a moment to learn a free one, then closed)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_ray_address_nothing_answers_is_exit_3_naming_it_without_ray_s_long_wait(tmp_path):
    """ray.init on a well-formed address nothing answered retried for about two minutes before
    failing. The head's port is probed first (a short TCP connect). The subprocess timeout is only a
    guard: a regression to Ray's wait fails here instead of hanging."""
    import subprocess
    import sys

    pytest.importorskip("ray")
    address = f"127.0.0.1:{_closed_port()}"
    done = subprocess.run([sys.executable, "-m", "fmhactl", "build", "ref", "--ray", address], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "FMHACTL_HOME": str(tmp_path / "home")})
    assert done.returncode == 3, (done.returncode, done.stderr[-500:])
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("fmhactl: error: ray: nothing answers at " + address), done.stderr


def test_the_ray_probe_connects_to_the_endpoint_the_address_names():
    import socket

    from fmhactl.errors import MissingEnvironment
    from fmhactl.sweep.devices import ray_endpoint
    from fmhactl.sweep.ray_backend import probe_address

    assert ray_endpoint("head:6379") == ("head", 6379) and ray_endpoint("[::1]:6379") == ("::1", 6379)
    assert ray_endpoint("ray://head") == ("head", 10001) and ray_endpoint("ray://head:7") == ("head", 7)
    assert ray_endpoint("auto") is None and ray_endpoint("local") is None and ray_endpoint("http://h:1") is None
    with socket.socket() as head:
        head.bind(("127.0.0.1", 0))
        head.listen()
        probe_address(f"127.0.0.1:{head.getsockname()[1]}", 5.0)  # answered: Ray is asked next
    with pytest.raises(MissingEnvironment, match="nothing answers at 127.0.0.1:"):
        probe_address(f"127.0.0.1:{_closed_port()}", 5.0)
    probe_address("auto", 0.01)  # Ray finds that address itself: not probed


def test_a_local_ray_cluster_without_a_gpu_is_exit_3_before_it_starts():
    """Bare --ray started a local cluster, found no GPU in it, then crashed closing it (exit 1)."""
    one_line(invoke("verify", "ref", "--shape", "d=64", "--ray", "", env={"FMHACTL_ASSUME_NO_GPU": "1"}), 3,
             "no GPU")


def test_a_ray_cluster_without_a_gpu_is_exit_3(monkeypatch):
    """RayBackend closed itself before its slot list existed: AttributeError, exit 1."""
    import sys
    import types

    ray = types.ModuleType("ray")
    ray.is_initialized = lambda: True  # a cluster this process is already connected to: no network here
    ray.cluster_resources = lambda: {"CPU": 2.0}
    ray.shutdown = lambda: None
    monkeypatch.setitem(sys.modules, "ray", ray)
    one_line(invoke("verify", "ref", "--shape", "d=64", "--ray", "auto", env={"FMHACTL_ASSUME_NO_GPU": "1"}), 3,
             "the cluster has no GPU")


# An empty string (an unset shell variable in `--out "$DIR"`) became Path("."): status and results
# export wrote into the working directory, init scaffolded it, results import read it, --svg "" was
# ignored and `tui --screenshot ""` opened the interactive app. Each is refused, naming the option.
@pytest.mark.parametrize("args, fragments", [
    (["status", "--out", ""], ("--out", "empty string")),
    (["status", "--evidence", "", "--check"], ("--evidence", "empty string")),
    (["results", "export", "--out", ""], ("--out", "empty string")),
    (["results", "import", ""], ("sources", "empty string")),
    (["init", ""], ("folder", "empty string")),
    (["--project", "", "list"], ("--project", "empty string")),
    (["trace", "sm100_tma_s2_tmem", "--shape", "t=128,s=512,d=128", "--raw", ""], ("--raw", "empty string")),
    (["layout", "smem", "--svg", ""], ("--svg", "empty string")),
    (["tma", "check", "--preset", "seed002", "--svg", ""], ("--svg", "empty string")),
    (["merge", "--demo", "--out", ""], ("no --out",)),
])
def test_an_empty_path_is_bad_input_not_the_working_directory(tmp_path, monkeypatch, args, fragments):
    monkeypatch.chdir(tmp_path)
    one_line(invoke(*args, env={"FMHACTL_ASSUME_NO_GPU": "1"}), 2, *fragments)
    assert list(tmp_path.iterdir()) == []


def test_an_empty_screenshot_path_never_opens_the_interactive_tui(tmp_path, monkeypatch):
    import fmhactl.tui.app

    opened = []
    monkeypatch.setattr(fmhactl.tui.app.FmhaApp, "run", lambda self, *a, **k: opened.append(self))  # never wait on it
    monkeypatch.chdir(tmp_path)
    one_line(invoke("tui", "--screen", "tmem", "--screenshot", ""), 2, "--screenshot")
    assert not opened
