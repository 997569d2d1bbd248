"""Figures the README states come from the tool: a test fails when the README and the tool differ."""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_count_of_checks_verify_all_runs(registry):
    [stated] = re.findall(r"`verify all` runs every claim, part and reading of the pack \((\d+) checks", README)
    assert int(stated) == sum(len(claim.checks()) for claim in registry)


def test_the_survivors_and_their_proofs_are_the_locks():
    [survive, proved, shared] = re.findall(
        r"Of the (\d+) checks that survive the search\s+here, (\d+) are proved .*? and (\d+) carry the\s+share\s+decided", README,
        re.S)[0]
    checks = json.loads((ROOT / "claims.lock").read_text())["checks"]
    survivors = [c for c in checks if c["verdict"] in ("survived", "inconclusive")]
    assert int(survive) == len(survivors)
    assert int(proved) == sum(1 for c in survivors if (c.get("proof") or {}).get("status") == "proved")
    assert int(shared) == len(survivors) - int(proved)
