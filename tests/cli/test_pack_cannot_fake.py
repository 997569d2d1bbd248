"""A pack cannot fake a verdict: the process that decides never runs the pack's code, and what
the pack's code does in its worker -- fork, leave processes or threads, ignore SIGTERM, change
directory, exit only where it thinks it is trusted -- costs only its own row, loudly.

Each test writes its hostile pack (and an honest claim drawn from a seed beside it, see
:mod:`.packs_helpers`) and runs ``verify`` as a subprocess, as CI would.  Every test failed on
the tree where the main process imported the packs and worker answers came back by position.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.regression.test_kill import _alive, _children

from .packs_helpers import HELPERS, claim_source, pack_constants
from .test_hostile_packs import PAPER, QUICK, TIMEOUT, run, write_pack

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        for child in _children(todo.pop()):
            out.append(child)
            todo.append(child)
    return out


def _gone(pids, within: float = 15.0) -> bool:
    deadline = time.monotonic() + within
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not any(_alive(p) for p in pids)


def _two_claims(folder: Path, seed: int, forker: str, honest_false: bool) -> None:
    """``pack.py``: claim ``fork`` (its lhs runs ``forker`` once per process) and the seeded claim ``1``,
    true (``honest_false=False``) or false."""
    n_max, c = pack_constants(seed)
    body = textwrap.indent(textwrap.dedent(forker).strip(), "        ")
    (folder / "pack.py").write_text(
        f"import os, sys, time\nfrom verifier import Claim, Dim, Part, Scalar, Vector\n{HELPERS}\n"
        f"_DONE = []\n\n"
        f"def forking(ctx, v):\n    if not _DONE:\n        _DONE.append(1)\n{body}\n    return v.x\n\n"
        f"fork = Claim(id='fork', title='forks', paper={PAPER!r}, statement='x <= x + 1', dims=[],\n"
        f"             variables=[Scalar('x', lo=-1, hi=1)], parts=[Part('main', forking, lambda ctx, v: v.x + 1)])\n"
        f"claims = [fork, {claim_source('1', PAPER, n_max, c, false_one=honest_false)}]\n")


@pytest.mark.parametrize("seed", [3, 8])
def test_a_fork_in_one_claim_does_not_hide_another_claims_drift(tmp_path, seed):
    # the forked copy returns into the worker's loop as the worker does: with answers taken by
    # position it answered for the next task, and `check` printed "match" for a claim now false
    forker = "pid = os.fork()\nif pid:\n    os.waitpid(pid, 0)"
    _two_claims(tmp_path, seed, forker, honest_false=False)
    r = run("lock", "--pack", "pack.py", "--budget", 3000, "--prove-time", 0, "-j", 1, cwd=tmp_path)
    assert r.returncode == 2 and "not writing" in r.stderr and "forked its process" in r.stderr, r.stderr  # a lock never records it
    _two_claims(tmp_path, seed, "pass", honest_false=False)
    r = run("lock", "--pack", "pack.py", "--budget", 3000, "--prove-time", 0, "-j", 1, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    _two_claims(tmp_path, seed, forker, honest_false=True)  # claim 1 is false now, and claim fork forks
    r = run("check", "--pack", "pack.py", "-j", 1, "--json", cwd=tmp_path)
    assert r.returncode != 0, r.stdout
    rows = {o["claim"]: o for o in json.loads(r.stdout)}
    assert sorted(rows) == ["1", "fork"]
    assert rows["1"]["status"] != "match" and rows["1"]["now"] == "refuted", rows["1"]
    assert rows["fork"]["now"] == "error" and "forked its process" in rows["fork"]["detail"], rows["fork"]
    r = run("all", "--pack", "pack.py", "--budget", 3000, "--prove-time", 0, "-j", 1, "--json", cwd=tmp_path)
    assert sorted(o["claim"] for o in json.loads(r.stdout)) == ["1", "fork"]  # each row once


def test_a_pack_that_exits_on_its_second_import_cannot_end_the_run_quietly(tmp_path):
    # it imports cleanly where it is first imported, then ends the process that imports it again
    # (the old main process): there it ended `verify lemma` with exit 0 and no output
    marker = tmp_path / "imported-once"
    n_max, c = pack_constants(4)
    (tmp_path / "pack.py").write_text(
        f"import os\nfrom verifier import Claim, Dim, Part, Vector\n{HELPERS}\n"
        f"if os.path.exists({str(marker)!r}):\n    os._exit(0)\nopen({str(marker)!r}, 'w').close()\n"
        f"claim = {claim_source('1', PAPER, n_max, c)}\n")
    for command in (("lemma", "1", *QUICK), ("lemma", "1", *QUICK, "-j", 2)):
        marker.unlink(missing_ok=True)
        r = run(*command, "--pack", "pack.py", cwd=tmp_path)
        # the honest verdict (claim 1 is false), or an error naming the exit: never a quiet 0
        assert r.returncode in (1, 2), (command, r.returncode, r.stdout, r.stderr)
        rows = json.loads(r.stdout) if r.stdout.strip() else []
        if r.returncode == 1:
            assert rows and all(row["verdict"] == "refuted" for row in rows), rows
        else:
            assert "ended its process" in r.stderr + r.stdout, r.stderr


@pytest.mark.parametrize("detach", ["", ", start_new_session=True"])
def test_processes_a_claim_starts_die_with_its_task(tmp_path, detach):
    pids = tmp_path / "pids"
    write_pack(tmp_path, f"""
        if not os.path.exists({str(pids)!r}):
            import subprocess
            p = subprocess.Popen(["sleep", "300"]{detach})
            open({str(pids)!r}, "w").write(str(p.pid))
        return v.x
    """)
    r = run("lemma", "bad", "--pack", "pack.py", *QUICK, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    (row,) = json.loads(r.stdout)
    assert row["verdict"] == "error" and "running after its task (killed)" in row["message"], row
    assert _gone([int(pids.read_text())], within=5)


def test_a_thread_a_claim_leaves_does_not_keep_verify_alive(tmp_path):
    write_pack(tmp_path, """
        import threading
        if not any(t.name == "left-behind" for t in threading.enumerate()):
            threading.Thread(target=time.sleep, args=(300,), name="left-behind").start()
        return v.x
    """)
    start = time.monotonic()
    r = run("lemma", "bad", "--pack", "pack.py", *QUICK, cwd=tmp_path, timeout=90)
    assert time.monotonic() - start < 60
    (row,) = json.loads(r.stdout)
    assert row["verdict"] == "error" and "left-behind" in row["message"], row


def test_a_pack_that_ignores_sigterm_does_not_make_verify_ignore_it(tmp_path):
    write_pack(tmp_path, """
        time.sleep(0.05)
        return v.x
    """, header="signal.signal(signal.SIGTERM, signal.SIG_IGN)")
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen([sys.executable, "-m", "verifier", "lemma", "bad", "--pack", "pack.py", "--time", "120", "--prove-time", "0"],
                            cwd=tmp_path, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        # a worker, not the catalog's short-lived loader: a process alive across a second
        deadline, workers = time.monotonic() + 60, []
        while not workers and time.monotonic() < deadline:
            before = set(_descendants(proc.pid))
            time.sleep(1.0)
            workers = sorted(before & set(_descendants(proc.pid)))
        assert workers, "no worker started"
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == -signal.SIGTERM
    assert _gone(workers)


def test_a_pack_that_changes_directory_cannot_move_the_lock(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    n_max, c = pack_constants(6)
    (project / "pack.py").write_text(f"import os\nos.chdir({str(elsewhere)!r})\nfrom verifier import Claim, Dim, Part, Vector\n{HELPERS}\n"
                                     f"claim = {claim_source('1', PAPER, n_max, c, false_one=False)}\n")
    r = run("lock", "--pack", "pack.py", "--budget", 2000, "--prove-time", 0, cwd=project)
    assert r.returncode == 0, r.stderr
    assert (project / "claims.lock").exists() and not (elsewhere / "claims.lock").exists()


@pytest.mark.slow
def test_workers_end_when_verify_is_killed(tmp_path):
    # SIGKILL: nothing in the parent can clean up, so every worker (and the processes the claim
    # started in them) must watch for its parent's death itself
    write_pack(tmp_path, """
        time.sleep(0.05)
        return v.x
    """)
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen([sys.executable, "-m", "verifier", "all", "--pack", "pack.py", "-j", "2", "--time", "120", "--prove-time", "0"],
                            cwd=tmp_path, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while len(_descendants(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = _descendants(proc.pid)
        assert workers
        proc.kill()
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert _gone(workers)
