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


@pytest.mark.parametrize("spec, says", [("threads", "serial, process, dask-local"), ("dask://host", "dask://HOST:PORT"),
                                        ("dask://[::1", "an IPv6 address goes in brackets, then the port"),
                                        ("dask://a b:8786", "not a host name")])
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


def test_a_silent_listener_posing_as_a_scheduler_is_a_one_line_error_within_the_timeout(tmp_path):
    """A port that accepts and never answers: the connect timeout covers the handshake too."""
    pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install -e '.[dask]')")
    import socket
    import subprocess
    import sys
    import threading

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held = []
    threading.Thread(target=lambda: [held.append(server.accept()) for _ in range(8)], daemon=True).start()
    port = server.getsockname()[1]
    code = ("import sys, verifier.runner.dask as ex; ex.CONNECT_TIMEOUT = 2.0; from verifier.cli import main; "
            f"sys.argv = ['verify', 'lemma', '4.1', '--budget', '100', '--executor', 'dask://127.0.0.1:{port}']; main()")
    try:
        r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    finally:
        server.close()
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"error: --executor dask://127.0.0.1:{port}: no Dask scheduler answered") and r.stderr.count("\n") == 1, r.stderr
