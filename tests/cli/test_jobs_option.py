"""``--jobs``: the same report whatever the number of worker processes; bad values exit 2."""

import json

from click.testing import CliRunner

from verifier.cli import main


def _without_times(items):
    for item in items:
        item.pop("seconds", None)
        cx = item.get("counterexample") or {}
        if cx.get("found_by"):
            cx["found_by"].pop("seconds", None)
    return items


def test_jobs_do_not_change_the_report():
    args = ["lemma", "3.3", "--json", "--budget", "6000", "--seed", "2"]
    one = CliRunner().invoke(main, args + ["--jobs", "1"])
    two = CliRunner().invoke(main, args + ["--jobs", "2"])
    assert one.exit_code == two.exit_code == 1, (one.stderr, two.stderr)
    assert _without_times(json.loads(one.stdout)) == _without_times(json.loads(two.stdout))


def test_negative_jobs_is_a_usage_error():
    r = CliRunner().invoke(main, ["lemma", "4.1", "--jobs", "-1"])
    assert r.exit_code == 2 and "jobs" in r.stderr.lower()


def test_jobs_is_spelled_the_same_on_every_command():
    """-j and 0 (one per core) on every command that runs searches; a negative count is a usage error."""
    for command in ("lemma", "all", "check", "lock", "report"):
        text = CliRunner().invoke(main, [command, "--help"]).stdout
        assert "-j, --jobs" in text and "0: one per core" in text, command
        bad = CliRunner().invoke(main, [command, *(["4.1"] if command == "lemma" else []), "-j", "-1"])
        assert bad.exit_code == 2 and "jobs" in bad.stderr.lower(), command
