"""Hypotheses per part through the CLI: shown per part, locked per part, replayed by check."""

from __future__ import annotations

import json
import textwrap

from click.testing import CliRunner

from verifier.cli import main

PACK = textwrap.dedent('''
    """|x - 1/3| by regime: two parts, each under its own hypothesis."""
    from fractions import Fraction

    from verifier import Claim, Hypothesis, Part, Scalar

    B = Fraction(1, 3)
    claim = Claim(
        "regimes", "|x - 1/3| by regime", "|x - 1/3| = x - 1/3 for x >= 1/3, = 1/3 - x for x <= 1/3",
        variables=[Scalar("x", lo=-2, hi=2)], dims=[], paper="part-hypotheses",
        parts=[
            Part("right", lambda ctx, v: ctx.abs(v.x - B), lambda ctx, v: v.x - B, relation="==",
                 hypotheses=[Hypothesis("x \u2265 1/3", lambda ctx, v: v.x - B)]),
            Part("left", lambda ctx, v: ctx.abs(v.x - B), lambda ctx, v: B - v.x, relation="==",
                 hypotheses=[Hypothesis("x \u2264 1/3", lambda ctx, v: B - v.x)]),
        ],
    )
''')


def test_parts_are_shown_locked_and_checked_under_their_own_hypotheses(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "regimes.py").write_text(PACK)
    runner = CliRunner()
    shown = runner.invoke(main, ["show", "regimes", "--pack", "regimes.py"])
    assert shown.exit_code == 0, shown.output
    assert "part right" in shown.output and "under: x \u2265 1/3" in shown.output and "under: x \u2264 1/3" in shown.output
    doc = json.loads(runner.invoke(main, ["show", "regimes", "--pack", "regimes.py", "--json"]).stdout)
    assert [p["hypotheses"] for p in doc["parts"]] == [["x \u2265 1/3"], ["x \u2264 1/3"]]
    locked = runner.invoke(main, ["lock", "--pack", "regimes.py", "--budget", "4000", "--prove-time", "20"])
    assert locked.exit_code == 0, locked.output
    checks = {c["part"]: c for c in json.loads((tmp_path / "claims.lock").read_text())["checks"]}
    assert {p: c["verdict"] for p, c in checks.items()} == {"right": "survived", "left": "survived"}
    assert all(c["proof"]["status"] == "proved" for c in checks.values()), checks
    replay = runner.invoke(main, ["check", "--pack", "regimes.py"])
    assert replay.exit_code == 0, replay.output
