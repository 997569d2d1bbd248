"""Bad option values end in a one-line answer: exit 0, 1 or 2, never a traceback, in bounded time and memory.

110 cases drawn from a fixed seed by tests/cli/option_fuzz.py (every option of every command that
takes a value, with a value a careless or hostile user types), run in one process under a 3 GiB
address-space limit that its workers inherit: an option that makes the verifier allocate without
bound fails its case with an internal error (MemoryError), one that makes it run past its limit
is stopped at 90 s and fails.  The cases the issue and the fuzzer's first runs found run every time
(``option_fuzz.KNOWN``), before the seeded ones.  What the fuzzer found on the tree before: ``prove --box
x=0:1e999999999`` ran until stopped (a billion-digit integer made before any check), ``--box
eps=0:1e400`` grew to gigabytes on B.2; ``--dims n=2,n=3`` exited 1 on n = 3 without a word;
``experiment ... --seed -1`` and ``--weight-factors 1e80`` ended in internal errors, and a path
too long for the file system (``check --junit``/``--store``, ``report -o``, ``experiment --out``)
in an OSError.
"""

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .option_fuzz import HOSTILE, KNOWN, cases, command_options
from .packs_helpers import verify

ROOT = Path(__file__).resolve().parents[2]
SEED, CASES = 20261128, 110
MEMORY_LIMIT = 3 * 2**30


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


@pytest.fixture(scope="module")
def fuzzed():
    env = {**os.environ, "COLUMNS": "200", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", "tests.cli.option_fuzz", str(SEED), str(CASES)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1800, preexec_fn=_limit_memory)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return lines[:-1], lines[-1]["peak_kib"]


@pytest.mark.slow
def test_every_bad_option_value_is_answered_in_one_line(fuzzed):
    results, peak = fuzzed
    assert len(results) == CASES + len(KNOWN)
    bad = [r for r in results if r["exit"] not in (0, 1, 2) or r["traceback"] or r["internal_error"] or r["seconds"] > 60]
    assert not bad, "\n".join(f"{r['command']} {r['option']} {r['value'][:40]!r}: exit {r['exit']}, {r['seconds']} s: {r['tail']}" for r in bad)
    # the memory limit held every case; the peak says how far below it they stayed
    assert peak["self"] < MEMORY_LIMIT // 1024 and peak["children"] < MEMORY_LIMIT // 1024


@pytest.mark.slow
def test_a_refused_value_is_exit_2(fuzzed):
    """A value that is no number where a number is asked, or a key given twice, is a usage error, never a verdict."""
    results, _ = fuzzed
    known = {(c, o, v) for c, o, v in KNOWN}
    for r in results:
        if (r["command"], r["option"], r["value"]) in known:
            assert r["exit"] == 2 and r["seconds"] < 30, r
        if r["value"] in ("1e999999999", "1/0", "nan", "inf", "9" * 80) and r["option"] in ("--seed", "--budget", "--dps", "--box", "--dims", "--rounds"):
            assert r["exit"] == 2, r


def test_a_box_of_1e400_on_lemma_b2_is_refused_at_once():
    """The issue's case: eps in [0, 1e400] on B.2 grew to 3.5 GB and ran past its time limit."""
    start = time.monotonic()
    r = verify("prove", "B.2", "--dims", "n=2", "--box", "eps=0:1e400", "--time", 5)
    assert r.exit_code == 2 and "eps=0:1e400" in r.stderr and "limit" in r.stderr, r.output
    assert time.monotonic() - start < 5


def test_the_cases_cover_every_option_and_are_seeded():
    assert cases(SEED, CASES) == cases(SEED, CASES)
    drawn = cases(SEED, CASES)[len(KNOWN):]
    assert {(c, o) for c, o, _ in drawn} == set(command_options())
    assert sum(v in HOSTILE for _, _, v in drawn) > CASES // 2
