"""The audit table of `verify all` stays readable at 80 and 120 columns and in a pipe."""

import io

import pytest
from rich.console import Console

from verifier.reporters.text import check_name, evidence, print_summary_table
from verifier.results import CheckResult, Counterexample, SearchStats, Verdict


def _cx(lhs, rhs):
    return Counterexample(
        claim="5.1", part="main", reading="midrange", paper="p", dims={"n": 2}, vars={}, lhs=lhs, rhs=rhs,
        margin="-1", dps=50, method="interval", certificate="ball",
    )


RESULTS = [
    CheckResult("5.1", "main", "midrange", Verdict.REFUTED, method="interval",
                counterexample=_cx("0.12875806894978403605893348791335364852245082338964", "0.124261119800886899282121498527"),
                stats=SearchStats(evaluations=12288), seconds=1.8),
    CheckResult("3.3", "1", "as-printed", Verdict.SURVIVED, stats=SearchStats(evaluations=200_032, best_margin=-0.0, max_ratio=1.0), seconds=0.4),
    CheckResult("eq9", "main", "rowwise-res", Verdict.SURVIVED, relation="==", stats=SearchStats(evaluations=20_000, best_margin=0.0), seconds=0.2),
    CheckResult("5.2", "main", "intended", Verdict.REFUTED, method="interval", counterexample=_cx("0.1224593312", "0.0"), seconds=0.2),
]


def test_names_and_evidence_are_short():
    assert [check_name(r) for r in RESULTS] == ["5.1 [midrange]", "3.3 (1)", "eq9 [rowwise-res]", "5.2 [intended]"]
    assert evidence(RESULTS[0]) == "0.12875807 vs 0.12426112\nlhs/rhs 1.03619"
    assert evidence(RESULTS[1], "; ") == "margin \u2265 0; max lhs/rhs 1"  # -0 prints as 0
    assert evidence(RESULTS[3]).endswith("lhs/rhs \u221e")


@pytest.mark.parametrize("width", [80, 120])
def test_table_fits_the_terminal(width):
    out = io.StringIO()
    print_summary_table(Console(file=out, width=width, force_terminal=False), RESULTS)
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) <= width
    assert "[midrange]" in text and "[rowwise-res]" in text  # brackets are text, not markup
    assert "0.12875807 vs 0.12426112" in text
    assert "4 checks: 2 refuted, 2 survived" in text
    assert "time" in text and "1.8s" in text and "12k" in text  # no column dropped
