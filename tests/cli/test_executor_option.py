"""``--executor``: the same report on Dask workers as in-process; a bad spec is a one-line usage error."""

import json
import os

import pytest
from click.testing import CliRunner

from tests.cli.test_jobs_option import _without_times
from verifier.cli import main

COMMANDS = ("lemma", "all", "check", "lock", "prove")


def test_executor_sits_next_to_jobs_on_every_command():
    for command in COMMANDS:
        text = CliRunner().invoke(main, [command, "--help"]).stdout
        assert "--executor SPEC" in text and "dask-local" in text, command


@pytest.mark.parametrize("spec, says", [("threads", "serial, process, dask-local"), ("dask://host", "dask://HOST:PORT")])
def test_a_bad_executor_is_one_line_and_exit_2(spec, says):
    for command in COMMANDS:
        r = CliRunner().invoke(main, [command, *(["4.1"] if command in ("lemma", "prove") else []), "--executor", spec])
        assert r.exit_code == 2, (command, r.stderr)
        assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"error: --executor {spec}: ") and says in r.stderr, r.stderr


def test_dask_local_gives_the_serial_report():
    if os.environ.get("CI") != "true":
        pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install -e '.[dask]')")
    args = ["lemma", "4.1", "--json", "--budget", "20000", "--seed", "2"]
    serial = CliRunner().invoke(main, args + ["--executor", "serial"])
    dask = CliRunner().invoke(main, args + ["--executor", "dask-local", "-j", "2"])
    assert serial.exit_code == dask.exit_code == 1, (serial.stderr, dask.stderr)
    assert _without_times(json.loads(dask.stdout)) == _without_times(json.loads(serial.stdout))
