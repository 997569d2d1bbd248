"""The audit rows of `verify all`: short names and evidence, one whole line per check in a pipe."""

import io

from rich.console import Console

from verifier.reporters.text import check_name, evidence
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


def test_rows_are_single_lines_with_every_column():
    from verifier.reporters.progress import StreamingRows
    from verifier.reporters.text import print_summary_counts, summary_header, summary_row

    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=False)
    with StreamingRows(console, len(RESULTS), summary_header()) as rows:
        for r in RESULTS:
            rows.add(summary_row(r))
    print_summary_counts(console, RESULTS)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 + len(RESULTS) + 1  # header, one line per check (never wrapped), counts
    assert "[midrange]" in lines[1] and "[rowwise-res]" in lines[3]  # brackets are text, not markup
    assert "0.12875807 vs 0.12426112; lhs/rhs 1.03619" in lines[1]
    assert "1.8s" in lines[1] and "12k" in lines[1] and "time" in lines[0]  # no column dropped
    assert lines[-1].startswith("4 checks: 2 refuted, 2 survived")
