"""Every option and every stored number is bounded before work starts (issue 16, part 2).

Bad values end in exit 2 with a one-line message naming the option, or the file and field;
never a traceback.  Commands that could exhaust the machine run as subprocesses here, so
their peak memory is measured (``ru_maxrss`` of the child) and their run time bounded.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from verifier import limits
from verifier.cli import main

ROOT = Path(__file__).resolve().parents[2]
REVIEWER = ROOT / "counterexamples/alman-song-2025/4.1/reviewer.json"
ONE_GB = 1024  # MB


def run_measured(args, timeout=120, cwd=None):
    """``python -m verifier ARGS`` in a subprocess: (exit code, stdout, stderr, seconds, peak MB of that process)."""
    start = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "verifier", *map(str, args)], stdout=out, stderr=err, text=True,
                                cwd=cwd or ROOT, start_new_session=True)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > timeout:
                os.killpg(proc.pid, signal.SIGKILL)
                os.wait4(proc.pid, 0)
                pytest.fail(f"verify {' '.join(map(str, args))} still running after {timeout} s")
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read(), err.read(), time.monotonic() - start, usage.ru_maxrss / 1024


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# ------------------------------------------------------------------------------ options
@pytest.mark.parametrize("args, option", [
    (["lemma", "4.1", "--seed", "-1"], "--seed"),
    (["lemma", "4.1", "--seed", str(2**64)], "--seed"),
    (["lemma", "4.1", "--time", "nan"], "--time"),
    (["lemma", "4.1", "--time", "inf"], "--time"),
    (["lemma", "4.1", "--time", "0"], "--time"),
    (["lemma", "4.1", "--dps", "1000000000"], "--dps"),
    (["lemma", "4.1", "--budget", str(limits.MAX_BUDGET + 1)], "--budget"),
    (["all", "--time", "-1"], "--time"),
    (["tighten", "4.1", "--rounds", "1000000000"], "--rounds"),
    (["tighten", "4.1", "--time", "nan"], "--time"),
    (["prove", "4.1", "--time", "inf"], "--time"),
    (["prove", "4.1", "--dims", "n=1000000000,d=1"], "--dims"),
    (["prove", "4.1", "--dims", "n=3,d=" + "9" * 5000], "--dims"),
    (["replay", REVIEWER, "--dps", "99999"], "--dps"),
    (["lock", "--seed", "-1"], "--seed"),
    (["lock", "--time", "nan"], "--time"),
])
def test_out_of_range_option_is_a_usage_error_naming_it(args, option):
    r = invoke(*args)
    assert r.exit_code == 2, r.output
    assert option in r.stderr and "Traceback" not in r.stderr and "ERROR" not in r.stderr


def test_negative_seed_is_a_usage_error_not_an_error_panel():
    """Issue 13, part 3: `verify lemma 4.1 --seed -1` ended in an ERROR ValueError panel."""
    r = invoke("lemma", "4.1", "--seed", "-1")
    assert r.exit_code == 2 and "'--seed'" in r.stderr and "ValueError" not in r.stderr


_BAD_VALUES = {
    "--seed": st.one_of(st.integers(max_value=-1), st.integers(min_value=limits.MAX_SEED + 1)),
    "--budget": st.one_of(st.integers(max_value=0), st.integers(min_value=limits.MAX_BUDGET + 1)),
    "--dps": st.one_of(st.integers(max_value=limits.MIN_DPS - 1), st.integers(min_value=limits.MAX_DPS + 1)),
    "--time": st.one_of(st.sampled_from(["nan", "inf", "-inf", "NaN", "0", "-0.0", "1e400"]),
                        st.floats(min_value=limits.MAX_SECONDS * 1.01, allow_infinity=False), st.floats(max_value=0)),
    "--jobs": st.integers(max_value=-1),
}


@settings(max_examples=40, derandomize=True, deadline=None)
@given(option=st.sampled_from(sorted(_BAD_VALUES)), data=st.data(), command=st.sampled_from(["lemma", "all"]))
def test_any_out_of_range_value_is_refused_before_work(option, data, command):
    value = data.draw(_BAD_VALUES[option])
    args = [command] + (["4.1"] if command == "lemma" else []) + [option, str(value)]
    start = time.monotonic()
    r = invoke(*args)
    assert r.exit_code == 2 and option in r.stderr and "Traceback" not in r.stderr
    assert time.monotonic() - start < 5  # refused up front, no search


def test_jobs_beyond_the_cores_are_capped_and_said(monkeypatch):
    monkeypatch.setattr(limits, "available_cores", lambda: 2)
    r = invoke("lemma", "4.1", "--reading", "repaired", "--budget", 500, "--jobs", 1000, "--json")
    assert r.exit_code == 0, r.stderr
    assert "--jobs 1000 capped at 2" in r.stderr
    assert json.loads(r.stdout)[0]["verdict"] == "survived"


def test_jobs_within_the_cores_are_not_mentioned(monkeypatch):
    monkeypatch.setattr(limits, "available_cores", lambda: 4)
    r = invoke("lemma", "4.1", "--reading", "repaired", "--budget", 500, "--jobs", 2, "--json")
    assert r.exit_code == 0 and "capped" not in r.stderr


# ------------------------------------------------------------------------------ the budget is a count
@pytest.mark.slow
def test_a_huge_budget_is_stopped_by_the_time_limit_with_flat_memory():
    """Measured before: still running after 90 s at 3.8 GB (a list sized by the budget)."""
    code, out, err, seconds, peak = run_measured(
        ["lemma", "4.1", "--reading", "repaired", "--budget", 10**12, "--time", 3, "--json"], timeout=90)
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["verdict"] == "survived" and row["stop_reason"] == "time limit reached"
    assert 0 < row["evaluations"] < 10**12 and row["budget"] == 10**12
    assert peak < ONE_GB, peak


# ------------------------------------------------------------------------------ stored files, through the CLI
def _bad_files(tmp_path):
    doc = json.loads(REVIEWER.read_text())
    long_number = dict(doc, vars=dict(doc["vars"], eps="1" * 100_000))
    huge_dims = dict(doc, dims={"n": 10**9, "d": 1})
    nested = json.dumps(doc)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    files = {}
    for name, content, field in [("long.json", long_number, "vars.eps"), ("dims.json", huge_dims, "dims.n"), ("nested.json", nested, "'x'")]:
        path = tmp_path / name
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        files[name] = (path, field)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    files["fifo.json"] = (fifo, "FIFO")
    return files


@pytest.mark.slow
@pytest.mark.parametrize("name", ["long.json", "dims.json", "nested.json", "fifo.json"])
def test_a_bad_stored_file_is_refused_by_field_in_bounded_time_and_memory(tmp_path, name):
    path, field = _bad_files(tmp_path)[name]
    code, out, err, seconds, peak = run_measured(["replay", path], timeout=60)
    assert code == 2 and str(path) in err and field in err and "Traceback" not in err and "internal error" not in err
    assert len(err.strip().splitlines()) == 1
    assert peak < ONE_GB, peak


def test_a_folder_given_as_a_file_is_refused():
    r = invoke("replay", ROOT / "counterexamples")
    assert r.exit_code == 2 and "directory" in r.stderr


# ------------------------------------------------------------------------------ the store is checked before the search
def test_save_to_an_unwritable_store_is_refused_before_searching(tmp_path, monkeypatch):
    from verifier.audit import Audit

    def no_search(*a, **k):
        raise AssertionError("searched although the store cannot be written")

    monkeypatch.setattr(Audit, "search", no_search)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    r = invoke("lemma", "4.1", "--reading", "as-printed", "--save", "--store", blocker / "store")
    assert r.exit_code == 2 and str(blocker / "store") in r.stderr and "Traceback" not in r.stderr


def test_lock_with_an_unwritable_store_is_refused_before_searching(tmp_path, monkeypatch):
    from verifier.audit import Audit

    monkeypatch.setattr(Audit, "search", lambda *a, **k: pytest.fail("searched although the store cannot be written"))
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    r = invoke("lock", "--lock", tmp_path / "claims.lock", "--store", blocker / "store", "--claim", "4.1", "--budget", 100)
    assert r.exit_code == 2 and str(blocker / "store") in r.stderr
    assert not (tmp_path / "claims.lock").exists()


def test_save_to_a_writable_store_still_saves(tmp_path):
    r = invoke("lemma", "4.1", "--reading", "as-printed", "--budget", 4000, "--save", "--store", tmp_path / "new" / "store")
    assert r.exit_code == 1, r.stderr
    saved = list((tmp_path / "new" / "store").rglob("*.json"))
    assert len(saved) == 1 and not list((tmp_path / "new" / "store").rglob("*.tmp"))
