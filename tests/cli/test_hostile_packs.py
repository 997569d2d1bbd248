"""A claim cannot turn CI green or hang it: hostile packs, written by each test.

Each pack holds one hostile claim (its code exits, raises KeyboardInterrupt, sleeps forever,
crashes, prints, or draws random numbers) next to an honest false claim drawn from a seed
(:mod:`.packs_helpers`).  Commands run as subprocesses with a timeout: on a tree without
isolation, ``os._exit`` ends the test process itself and a sleeping claim never returns.
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

from .packs_helpers import HELPERS, claim_source, pack_constants, verify

PAPER = "hostile"
TIMEOUT = 120  # seconds a command may take before the test calls it hung


def write_pack(folder: Path, hostile_lhs: str, seed: int = 5, *, header: str = "", rhs: str = "v.x + 1") -> Path:
    """``pack.py``: claim ``bad`` (lhs given as code over ctx and v, <= rhs) and the seeded false claim ``1``."""
    n_max, c = pack_constants(seed)
    body = textwrap.indent(textwrap.dedent(hostile_lhs).strip(), "    ")
    source = (f"import os, random, signal, sys, time\nfrom verifier import Claim, Dim, Part, Scalar, Vector\n{header}\n{HELPERS}\n\n"
              f"def hostile(ctx, v):\n{body}\n\n\n"
              f"bad = Claim(id='bad', title='hostile', paper={PAPER!r}, statement='x <= x + 1', dims=[],\n"
              f"            variables=[Scalar('x', lo=-1, hi=1)], parts=[Part('main', hostile, lambda ctx, v: {rhs})])\n"
              f"claims = [bad, {claim_source('1', PAPER, n_max, c)}]\n")
    path = folder / "pack.py"
    path.write_text(source)
    return path


def run(*args, cwd, env=None, timeout=TIMEOUT):
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "verifier", *map(str, args)], cwd=cwd, env=environ,
                          capture_output=True, text=True, timeout=timeout)


def rows(stdout: str) -> dict:
    return {(r["claim"], r["reading"]): r for r in json.loads(stdout)}


QUICK = ("--budget", 4000, "--prove-time", 0, "--json")


@pytest.mark.parametrize("code, says", [
    ("sys.exit(0)", "called sys.exit(0)"),
    ("os._exit(0)", "ended its process (exit status 0"),
    ("raise KeyboardInterrupt", "raised KeyboardInterrupt"),
    ("os.kill(os.getpid(), signal.SIGSEGV)", "SIGSEGV"),
])
def test_claim_code_that_ends_its_process_is_its_own_error_row(tmp_path, code, says):
    write_pack(tmp_path, code)
    r = run("all", "--pack", "pack.py", *QUICK, cwd=tmp_path)
    assert r.returncode == 2, (r.stdout, r.stderr)  # an error happened: never 0 (green) nor 1 (refuted)
    got = rows(r.stdout)
    bad = got[("bad", "as-printed")]
    assert bad["verdict"] == "error" and says in bad["message"], bad
    assert "pack.py" in bad["message"] or "exit status" in bad["message"] or "SIG" in bad["message"]
    assert got[("1", "as-printed")]["verdict"] == "refuted"  # the run went on


def test_claim_that_sleeps_forever_is_stopped_at_the_time_limit(tmp_path):
    write_pack(tmp_path, """
        while True:
            time.sleep(1)
    """)
    started = time.monotonic()
    r = run("all", "--pack", "pack.py", "--time", 2, *QUICK, cwd=tmp_path)
    assert r.returncode == 2, (r.stdout, r.stderr)
    bad = rows(r.stdout)[("bad", "as-printed")]
    assert bad["verdict"] == "error", bad
    assert "did not return within the time limit (--time 2 s)" in bad["message"] and "pack.py, line" in bad["message"], bad
    assert rows(r.stdout)[("1", "as-printed")]["verdict"] == "refuted"
    assert time.monotonic() - started < TIMEOUT


def test_time_bounds_the_search_and_the_proof_together(tmp_path):
    # the claim is true; its proof (z3 builds a formula from the claim's code) would never return
    write_pack(tmp_path, """
        while ctx.name == "z3":
            time.sleep(1)
        return v.x
    """)
    r = run("lemma", "bad", "--pack", "pack.py", "--budget", 10**12, "--time", 3, "--prove-time", 60, "--json", cwd=tmp_path)
    assert r.returncode == 0, (r.stdout, r.stderr)
    (row,) = json.loads(r.stdout)
    assert row["verdict"] == "survived" and row["stop_reason"] == "time limit reached", row
    assert row["proof"]["status"] == "not attempted" and "--time" in row["proof"]["message"], row["proof"]


@pytest.mark.parametrize("crash, name", [("os.abort()", "SIGABRT"), ("os.kill(os.getpid(), signal.SIGSEGV)", "SIGSEGV")])
def test_a_proof_that_crashes_says_so_and_the_search_verdict_stands(tmp_path, crash, name):
    write_pack(tmp_path, f"""
        if ctx.name == "z3":
            {crash}
        return v.x
    """)
    r = run("lemma", "bad", "--pack", "pack.py", "--budget", 2000, "--prove-time", 20, "--json", cwd=tmp_path)
    assert r.returncode == 0, (r.stdout, r.stderr)
    (row,) = json.loads(r.stdout)
    assert row["verdict"] == "survived", row
    assert row["proof"]["status"] == "error" and "crashed" in row["proof"]["message"] and name in row["proof"]["message"], row["proof"]


def test_verify_prove_whose_proof_crashes_is_a_one_line_error(tmp_path):
    write_pack(tmp_path, """
        if ctx.name == "z3":
            os.abort()
        return v.x
    """)
    r = run("prove", "bad", "--pack", "pack.py", "--box", "-1:1", "--time", 20, cwd=tmp_path)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stderr.rstrip().splitlines()[-1] == "error: the proof of bad crashed: its process died of signal SIGABRT (aborted)", r.stderr


def test_ctrl_c_exits_130_and_leaves_no_worker(tmp_path):
    write_pack(tmp_path, """
        time.sleep(0.05)
        return v.x
    """)
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.Popen([sys.executable, "-m", "verifier", "all", "--pack", "pack.py", "--prove-time", "0"], cwd=tmp_path,
                            env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        header = proc.stderr.readline()  # the table's header: the checks are running
        assert "verdict" in header, header
        time.sleep(1.0)
        workers = _children(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole foreground group
        _, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert "Aborted!" not in err and "interrupted" in err
    assert workers and all(_ended(w) for w in workers)


def _ended(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _alive(pid)


def test_pack_whose_import_loops_forever_is_a_load_error(tmp_path):
    (tmp_path / "loops.py").write_text("import time\nwhile True:\n    time.sleep(0.2)\n")
    n_max, c = pack_constants(2)
    (tmp_path / "good.py").write_text(f"from verifier import Claim, Dim, Part, Vector\n{HELPERS}\nclaim = {claim_source('1', 'good', n_max, c)}\n")
    r = run("list", "--pack", "loops.py", "--pack", "good.py", cwd=tmp_path, env={"VERIFY_IMPORT_TIME": "2"})
    assert r.returncode == 2, r.stderr
    assert "norms 1" in r.stdout  # the other pack is listed
    assert "pack loops.py: loops: importing it did not return within 2 s" in r.stderr and "loops.py, line 3" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("command", [("lemma", "bad", "--budget", 4000), ("all", "--budget", 4000), ("list",)])
def test_nothing_a_pack_prints_reaches_json_on_stdout(tmp_path, command):
    write_pack(tmp_path, """
        print("PRINTED BY THE CLAIM")
        os.write(1, b"WRITTEN BY THE CLAIM\\n")
        return v.x
    """, header='print("HELLO FROM THE PACK")\nimport os as _os\n_os.write(1, b"RAW FROM THE PACK\\n")\n')
    proofs = () if command[0] == "list" else ("--prove-time", 0)
    r = run(*command, "--pack", "pack.py", "--json", *proofs, cwd=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    json.loads(r.stdout)  # stdout is the JSON and nothing else
    assert "HELLO FROM THE PACK" in r.stderr and "RAW FROM THE PACK" in r.stderr
    if command[0] != "list":
        assert "PRINTED BY THE CLAIM" in r.stderr and "WRITTEN BY THE CLAIM" in r.stderr


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_claim_that_draws_random_numbers_is_not_deterministic_never_refuted(tmp_path, seed):
    # false half the time at any point: lhs = x + r with r uniform in [0, 1), rhs = x + 1/2
    write_pack(tmp_path, "return v.x + ctx.const(random.randrange(10**6)) / 10**6", rhs="v.x + ctx.const('1/2')")
    r = run("lemma", "bad", "--pack", "pack.py", "--seed", seed, "--budget", 20000, "--prove-time", 0, "--json", cwd=tmp_path)
    assert r.returncode == 2, (r.stdout, r.stderr)
    (row,) = json.loads(r.stdout)
    assert row["verdict"] == "error" and "NotDeterministic" in row["message"] and "bad" in row["message"], row


def test_stored_counterexample_of_a_claim_that_became_random_does_not_replay_as_refuted(tmp_path):
    # deterministic when saved (lhs = x + 1 > x + 1/2 everywhere); with HOSTILE_RANDOM set, lhs = x + 1 - r:
    # a replay would refute for about half of the draws
    write_pack(tmp_path, """
        if os.environ.get("HOSTILE_RANDOM"):
            return v.x + 1 - ctx.const(random.randrange(10**6)) / 10**6
        return v.x + 1
    """, rhs="v.x + ctx.const('1/2')")
    r = run("lemma", "bad", "--pack", "pack.py", "--budget", 4000, "--prove-time", 0, "--save", "--store", "store", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    (saved,) = (tmp_path / "store").rglob("*.json")
    for _ in range(6):
        r = run("replay", saved, "--pack", "pack.py", cwd=tmp_path, env={"HOSTILE_RANDOM": "1"})
        assert r.returncode == 2 and "not deterministic" in r.stderr.lower() and "bad" in r.stderr, (r.returncode, r.stderr)
        assert "Traceback" not in r.stderr


def test_certificate_escalation_answers_to_the_clock(tmp_path):
    # strict, and true: 1/(1 + exp(b - a)) < 1 with a near 10^8, where no enclosure below ~10^8 bits
    # separates the sides; sympy's equality proof of such a point ran for minutes under --time 20
    (tmp_path / "pack.py").write_text(textwrap.dedent("""
        from verifier import Claim, Part, Scalar

        claim = Claim(id="big", title="large logits", paper="logits", statement="1/(1 + exp(b - a)) < 1", dims=[],
                      variables=[Scalar("a", lo=99999990, hi=10**8), Scalar("b", lo=-10, hi=0)],
                      parts=[Part("main", lambda ctx, v: 1 / (1 + ctx.exp(v.b - v.a)), lambda ctx, v: 1, relation="<")])
    """))
    started = time.monotonic()
    r = run("lemma", "big", "--pack", "pack.py", "--time", 5, "--prove-time", 0, "--json", cwd=tmp_path)
    elapsed = time.monotonic() - started
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)
    assert row["verdict"] in ("survived", "inconclusive"), row
    assert elapsed < 60, elapsed  # the check's 5 s and the start of two processes; never minutes


def test_a_claim_that_exits_in_process_is_an_error_row_with_the_cli_runner(tmp_path, monkeypatch):
    # the same boundary seen by the in-process runner the other CLI tests use
    monkeypatch.chdir(tmp_path)
    write_pack(tmp_path, "sys.exit(0)")
    r = verify("lemma", "bad", "--pack", "pack.py", *QUICK)
    assert r.exit_code == 2, r.output
    (row,) = json.loads(r.stdout)
    assert row["verdict"] == "error" and "called sys.exit(0)" in row["message"]


@pytest.mark.parametrize("code", ["os._exit(0)", "sys.exit(0)"])
def test_check_in_ci_is_not_turned_green_by_a_claim_that_exits_in_its_replay(tmp_path, code):
    # exits only when HOSTILE_EXIT is set: the lock is made honestly, CI's check meets the exit
    write_pack(tmp_path, f"""
        if os.environ.get("HOSTILE_EXIT"):
            {code}
        return v.x + 1
    """, rhs="v.x + ctx.const('1/2')")
    r = run("lock", "--pack", "pack.py", "--budget", 4000, "--prove-time", 0, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run("check", "--pack", "pack.py", cwd=tmp_path, env={"HOSTILE_EXIT": "1"})
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "claim bad" in r.stderr and ("ended its process" in r.stderr or "called sys.exit(0)" in r.stderr), r.stderr
