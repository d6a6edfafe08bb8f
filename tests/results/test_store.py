import sqlite3

from fmhactl.results.store import ResultRow, ResultStore


def test_rows_round_trip_and_filter(tmp_path):
    path = tmp_path / "r.sqlite"
    with ResultStore(path) as store:
        store.add(ResultRow(kind="verify", variant="ref", arch="sm_90a", mode="native", status="PASS",
                            config_key="k1", config={"seq_q": 1}, metrics={"cosine": 0.99}, seed=5, session="s"))
        store.add(ResultRow(kind="verify", variant="ref", arch="sm_90a", mode="native", status="FAIL",
                            config_key="k2", session="s"))
        store.add(ResultRow(kind="build", variant="other", arch="sm_100a", mode="compile-only", status="OK"))
        rows = store.query(kind="verify", variant="ref", newest_first=False)
        assert [r.status for r in rows] == ["PASS", "FAIL"]
        assert rows[0].metrics == {"cosine": 0.99} and rows[0].config == {"seq_q": 1} and rows[0].seed == 5
        assert [r.variant for r in store.query(mode="compile-only")] == ["other"]


def test_each_row_is_committed_when_added(tmp_path):
    """A sweep that dies after a row was added has still stored it."""
    path = tmp_path / "r.sqlite"
    store = ResultStore(path)
    store.add(ResultRow(kind="verify", variant="ref", arch="sm_90a", mode="native", status="PASS"))
    # Read through an independent connection while the writer is still open (as if it then crashed).
    count = sqlite3.connect(path).execute("SELECT COUNT(*) FROM results").fetchone()[0]
    assert count == 1
    store.close()


def test_many_processes_can_open_a_new_store_at_once(tmp_path):
    """Parallel `fmhactl build` runs on a fresh machine all create the DB at the same moment."""
    import subprocess
    import sys

    path = tmp_path / "fresh.sqlite"
    code = ("import sys; from fmhactl.results.store import ResultStore, ResultRow; s = ResultStore(__import__('pathlib').Path(sys.argv[1]));"
            "s.add(ResultRow(kind='build', variant='v', arch='sm_90a', mode='compile-only', status='OK')); s.close()")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)]) for _ in range(8)]
    assert [p.wait(timeout=120) for p in procs] == [0] * 8
    assert len(ResultStore(path).query(kind="build")) == 8
