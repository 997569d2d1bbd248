"""``verify all`` streams a row per check as it finishes: in a terminal (a pty) with an overall
progress bar on stderr, in a pipe as plain rows that never wrap."""

import os
import pty
import select
import subprocess
import sys
import time

from lemmas import REGISTRY

# A few quick claims stand in for the registry, so the test takes seconds.
CLAIMS = ("3.2", "3.3")
N_CHECKS = sum(len(c.checks()) for c in REGISTRY if c.id in CLAIMS)
DRIVER = f"""
import sys
import verifier.cli as cli
from lemmas import REGISTRY
from verifier.packside import memory_pack
memory_pack("quick", [c for c in REGISTRY if c.id in {CLAIMS!r}])
sys.argv = ["verify", "all", "--pack", "quick", "--budget", "20000", *sys.argv[1:]]
cli.main()
"""


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "COLUMNS", "NO_COLOR")}
    env.update(TERM="xterm", **extra)
    return env


def _in_pty(args, cwd=None):
    """Run ``args`` with a terminal on stdin, stdout and stderr: (exit code, [(seconds, text shown)])."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=_env(COLUMNS="120"))
    os.close(slave)
    chunks, start = [], time.monotonic()
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 120)
            assert ready, "no output for 120 s"
            try:
                data = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not data:
                break
            chunks.append((time.monotonic() - start, data.decode(errors="replace")))
    finally:
        os.close(master)
        proc.wait(timeout=120)
    return proc.returncode, chunks


def test_rows_stream_in_a_terminal_with_an_overall_bar():
    code, chunks = _in_pty([sys.executable, "-c", DRIVER])
    assert code == 1  # Fact 3.3 (2) and (3) are refuted
    text = "".join(c for _, c in chunks)
    assert f"/{N_CHECKS}" in text and "checks" in text  # the overall bar: done / total
    # the first row is on screen well before the last one: rows come as checks finish
    first = next(t for t, c in chunks if "3.2" in c and ("SURVIVED" in c or "INCONCLUSIVE" in c))
    last = next(t for t, c in chunks if "3.3 (3) [repaired]" in c)
    assert last - first > 0.2, [(round(t, 2), c[:40]) for t, c in chunks]
    assert f"{N_CHECKS} checks:" in text


def test_rows_in_a_pipe_are_whole_lines_at_any_width():
    proc = subprocess.run([sys.executable, "-c", DRIVER], capture_output=True, text=True, env=_env(COLUMNS="40"), timeout=120)
    assert proc.returncode == 1 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    rows = [line for line in lines if line.startswith(("3.2", "3.3"))]
    assert len(rows) == N_CHECKS
    assert all(len(line) > 40 for line in rows)  # not wrapped at COLUMNS
    refuted = next(line for line in rows if line.startswith("3.3 (2) "))
    assert "REFUTED" in refuted and "2 vs 1" in refuted and refuted.rstrip().endswith("lhs/rhs 2")
    assert "\x1b[" not in proc.stderr  # no escape codes in a log


def test_check_shows_progress_over_the_checks_it_searches():
    from .lock_project import ROOT

    # Lemma 4.2's four `intended` parts survive: each is searched afresh, about a second apiece
    code, chunks = _in_pty([sys.executable, "-m", "verifier", "check", "--claim", "4.2", "-j", "1"], ROOT)
    shown = "".join(c for _, c in chunks)
    assert code == 0, shown
    assert "checks searched" in shown and "/4" in shown


def test_prove_shows_a_spinner_while_the_solver_runs():
    from .lock_project import ROOT

    code, chunks = _in_pty([sys.executable, "-m", "verifier", "prove", "B.2", "--dims", "n=5", "--box", "a=-5:5",
                           "--box", "eps=0.01:2", "--time", "3"], ROOT)
    shown = "".join(c for _, c in chunks)
    assert code == 0 and "INCONCLUSIVE" in shown  # 3 s are not enough for a proof here
    assert "proving B.2 (limit 3 s)" in shown and "0:00:02" in shown  # the elapsed time moved while z3 or the boxes ran


def test_a_pipe_without_columns_keeps_fifty_digit_values_whole():
    from .lock_project import ROOT

    path = "counterexamples/alman-song-2025/5.1/main-as-printed-seed0.json"
    lhs = __import__("json").loads((ROOT / path).read_text())["lhs"]
    proc = subprocess.run([sys.executable, "-m", "verifier", "replay", path], cwd=ROOT, capture_output=True, text=True,
                          env=_env(), timeout=120)
    assert proc.returncode == 1 and len(lhs) >= 50
    assert lhs in proc.stderr  # on one line, not folded at 80 columns
