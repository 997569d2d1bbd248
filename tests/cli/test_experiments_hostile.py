"""Experiments stay bounded: recorded runs from someone else, and sizes that would exhaust the machine.

Each command runs in a subprocess with a time limit and an address-space limit, so an attack
that hangs or allocates gigabytes fails the test instead of the machine.
"""

import json
import os
import resource
import subprocess
import sys

import pytest
from click.testing import CliRunner

from verifier.cli import main

from .lock_project import ROOT

MEMORY_LIMIT = 3 * 2**30  # bytes of address space a command may take here


def verify_bounded(*args, cwd, seconds=120):
    """``verify ARGS`` in a process of its own: (exit code, stderr), or a failure when it outlives ``seconds``."""
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        p = subprocess.run([sys.executable, "-m", "verifier", *map(str, args)], cwd=cwd, env=env, preexec_fn=limit,
                           capture_output=True, text=True, timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.fail(f"verify {' '.join(map(str, args))} did not end within {seconds} s")
    return p.returncode, p.stderr


def assert_one_line_errors(code, stderr, count, *needles):
    assert code == 2, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == count and all(line.startswith("error: ") for line in lines), stderr
    for needle in needles:
        assert needle in stderr, (needle, stderr)


@pytest.fixture(scope="module")
def rank_record():
    r = CliRunner().invoke(main, ["experiment", "rank-collapse", "--small", "--json"])
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def _report(*files, cwd):
    # no lock is needed to get there: the records are read before anything is replayed
    return verify_bounded("report", "--format", "html", "--lock", "no-such.lock", *(a for f in files for a in ("--experiments", f)), cwd=cwd)


def test_a_fifo_and_a_device_are_refused_unread(tmp_path):
    os.mkfifo(tmp_path / "fifo.json")
    code, err = _report("fifo.json", cwd=tmp_path)
    assert_one_line_errors(code, err, 1, "fifo.json", "a FIFO, not a regular file")
    code, err = _report("/dev/zero", cwd=tmp_path)
    assert_one_line_errors(code, err, 1, "/dev/zero", "a character device, not a regular file")


def _variants(record):
    """Malformed copies of a genuine record, by name: each once broke the report."""
    deep = '{"schema": 1, "experiment": "rank-collapse", "config": ' + "[" * 100_000 + "]" * 100_000 + "}"
    long_int = json.dumps({**record, "seed": 0}).replace('"seed": 0', '"seed": ' + "7" * 4300, 1)
    huge = json.loads(json.dumps(record))
    huge["config"]["depth"] = 10**9
    uneven = json.loads(json.dumps(record))
    uneven["curves"] = [c for c in uneven["curves"] if not (c["variant"] == "san" and c["layer"] == 3)]
    wrong_type = json.loads(json.dumps(record))
    wrong_type["curves"][0]["layer"] = "three"
    return {"deep.json": deep, "long.json": long_int, "huge.json": json.dumps(huge), "uneven.json": json.dumps(uneven),
            "type.json": json.dumps(wrong_type)}


@pytest.mark.parametrize("name, needle", [
    ("deep.json", "nested deeper than the limit"),
    ("long.json", "longer than the limit"),
    ("huge.json", "config.depth = 1,000,000,000 is beyond the limit"),
    ("uneven.json", "curves: san in float64 has layers"),
    ("type.json", "curves[0].layer: expected int"),
])
def test_a_malformed_record_is_one_line_naming_file_and_field(tmp_path, rank_record, name, needle):
    (tmp_path / name).write_text(_variants(rank_record)[name])
    code, err = _report(name, cwd=tmp_path)
    assert_one_line_errors(code, err, 1, name, needle)


def test_every_bad_record_of_a_folder_gets_its_line(tmp_path, rank_record):
    folder = tmp_path / "runs"
    folder.mkdir()
    for name, text in _variants(rank_record).items():
        (folder / name).write_text(text)
    (folder / "good.json").write_text(json.dumps(rank_record))
    code, err = _report("runs", cwd=tmp_path)
    assert_one_line_errors(code, err, 5, *_variants(rank_record))
    assert "good.json" not in err


@pytest.mark.parametrize("args, needle", [
    (["rank-collapse", "--small", "--depth", 10**9], "--depth"),
    (["rank-collapse", "--small", "--width", 4_000_000], "--width"),
    (["rank-collapse", "--small", "--tokens", 10**9], "--tokens"),
    (["rank-collapse", "--small", "--tokens", 8000], "GiB"),  # each size within its cap, together too large
    (["rank-collapse", "--small", "--depth", 1000, "--width", 2048], "GiB"),
    (["layer-collapse", "--small", "--tokens", 200, "--widths", "2,200"], "GiB"),
    (["layer-collapse", "--small", "--widths", "2," + "9" * 30], "--widths"),
    (["layer-collapse", "--small", "--etas", "1e-3,1e-2,inf"], "--etas"),
])
def test_every_size_option_is_bounded_up_front(tmp_path, args, needle):
    code, err = verify_bounded("experiment", *args, cwd=tmp_path, seconds=60)
    assert code == 2, err
    assert needle in err and "Traceback" not in err and "internal error" not in err, err
