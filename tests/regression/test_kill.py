"""A killed ``verify lock`` or ``verify lemma --save`` leaves every file old or new, and nothing behind.

Each run is SIGKILLed (the main process only, as an OOM killer or a cancelled CI job does) at
points drawn from a fixed seed.  After each kill every file is either what it was before the
run or what an uninterrupted run writes; the next complete run leaves no temporary file; and
the pool workers of a killed run end with it.
"""

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verifier.limits import available_cores

ROOT = Path(__file__).resolve().parents[2]
CLAIM_FILES = ROOT / "counterexamples" / "alman-song-2025"
KILLS = 4


def verify(*args, cwd, stderr=subprocess.PIPE):
    return subprocess.Popen([sys.executable, "-m", "verifier", *map(str, args)], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=stderr, text=True)


def complete(*args, cwd):
    proc = verify(*args, cwd=cwd)
    _, err = proc.communicate(timeout=300)
    return proc.returncode, err


def contents(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def temporaries(folder: Path) -> list:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.tmp"))


def kill_at_random_points(args, start_state, cwd: Path, seed: int, longest: float):
    """Kill ``verify ARGS`` KILLS times, each from ``start_state``; yield the files left each time."""
    rng = random.Random(seed)
    for _ in range(KILLS):
        restore(cwd, start_state)
        proc = verify(*args, cwd=cwd)
        time.sleep(rng.uniform(0.0, longest))
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        yield contents(cwd)


def restore(folder: Path, state: dict):
    shutil.rmtree(folder)
    folder.mkdir()
    for name, data in state.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)


def comparable(data: bytes | None):
    """A file's document without what differs between two identical runs: timings, and the hashes that cover them."""
    if data is None:
        return None
    doc = json.loads(data)  # a half-written file fails here
    if isinstance(doc.get("found_by"), dict):
        doc["found_by"].pop("seconds", None)
    for check in doc.get("checks", []):
        check.pop("sha256", None)
    return doc


def assert_old_or_new(after: dict, old: dict, new: dict):
    for name, data in after.items():
        if name.endswith(".tmp"):
            continue  # a half-written temporary: cleaned by the next run (asserted below)
        assert comparable(data) in (comparable(old.get(name)), comparable(new.get(name))), f"{name} is neither the old nor the new file"


def assert_hashes_match(folder: Path):
    for check in json.loads((folder / "claims.lock").read_text())["checks"]:
        for name in check.get("counterexamples", []):
            assert check["sha256"][name] == hashlib.sha256((folder / name).read_bytes()).hexdigest()


LOCK_ARGS = ["lock", "--claim", "4.1", "--claim", "3.3", "--budget", 3000]


@pytest.fixture
def paper(tmp_path):
    """A lock of 4.1 and 3.3 whose seed-0 files are gone, so a lock must search and save them again."""
    root = tmp_path / "paper"
    for claim in ("4.1", "3.3"):
        shutil.copytree(CLAIM_FILES / claim, root / "counterexamples" / "alman-song-2025" / claim,
                        ignore=shutil.ignore_patterns("*seed0.json"))
    code, err = complete(*LOCK_ARGS, "--jobs", 1, cwd=root)
    assert code == 0, err
    for saved in root.rglob("*seed0.json"):
        saved.unlink()
    lock = json.loads((root / "claims.lock").read_text())
    lock["tool_version"] = "an older version"  # so the lock a run writes differs from the one before it
    (root / "claims.lock").write_text(json.dumps(lock, indent=2))
    return root


@pytest.mark.slow
def test_killed_lock_leaves_old_or_new_files_and_the_next_run_cleans_up(paper, tmp_path):
    args = [*LOCK_ARGS, "--jobs", 2]
    old = contents(paper)
    reference = tmp_path / "reference"
    shutil.copytree(paper, reference)
    started = time.monotonic()
    code, err = complete(*args, cwd=reference)
    assert code == 0, err
    longest = time.monotonic() - started
    new = contents(reference)
    assert new != old  # the run writes: a new lock and new counterexample files
    for after in kill_at_random_points(args, old, paper, seed=16, longest=longest):
        assert_old_or_new(after, old, new)
    code, err = complete(*args, cwd=paper)
    assert code == 0, err
    assert temporaries(paper) == []
    after = contents(paper)
    assert after.keys() == new.keys() and all(comparable(after[n]) == comparable(new[n]) for n in new)
    assert_hashes_match(paper)


@pytest.mark.slow
def test_killed_save_leaves_old_or_new_files_and_the_next_run_cleans_up(tmp_path):
    args = ["lemma", "4.1", "--reading", "as-printed", "--budget", 4000, "--save", "--store", "store"]
    work = tmp_path / "work"
    work.mkdir()
    reference = tmp_path / "reference"
    reference.mkdir()
    started = time.monotonic()
    code, err = complete(*args, cwd=reference)
    assert code == 1, err
    longest = time.monotonic() - started
    new = contents(reference)
    assert new
    for after in kill_at_random_points(args, {}, work, seed=13, longest=longest):
        assert_old_or_new(after, {}, new)
    # a temporary left by a writer that was killed mid-write, whatever the random points hit
    folder = work / "store" / "alman-song-2025" / "4.1"
    folder.mkdir(parents=True, exist_ok=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (folder / f".main-as-printed-seed0.json.{dead.pid}.abcd1234.tmp").write_text('{"half": ')
    complete(*args, cwd=work)
    assert temporaries(work) == []
    assert_old_or_new(contents(work), {}, new)


def _children(pid: int) -> list:
    try:
        return [int(c) for t in os.listdir(f"/proc/{pid}/task") for c in Path(f"/proc/{pid}/task/{t}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has ended; only its parent's reaping is left


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").exists() or available_cores() < 2, reason="needs Linux /proc and two cores")
def test_pool_workers_end_with_a_killed_parent(tmp_path):
    # no pipe: workers that outlive the parent would hold it open and stall the test instead of failing it
    proc = verify("lemma", "4.1", "--reading", "repaired", "--budget", 10**9, "--time", 120, "--jobs", 2, cwd=tmp_path,
                  stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    workers = []
    while time.monotonic() < deadline and not workers:
        workers = _children(proc.pid)
        time.sleep(0.1)
    try:
        assert workers, "the pool never started"
        time.sleep(0.5)  # let the workers pass their initializer
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not [w for w in workers if _alive(w)], "pool workers outlived their parent"
    finally:
        for w in workers:
            try:
                os.kill(w, signal.SIGKILL)
            except ProcessLookupError:
                pass
