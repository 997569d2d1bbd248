"""The appendix claims of Alman & Song reach, from scratch, the verdicts the hand derivations
in their modules predict (fixed seed, no stored files in sight)."""

import numpy as np
import pytest

from tests.conftest import check_of
from verifier.certify import Certifier
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict
from verifier.sampling import exactify

R, S, F = Verdict.REFUTED, Verdict.SURVIVED, Verdict.SURROGATE_FAILS

# (claim, part, reading, budget, verdict, dims the hand derivation predicts for the shrunk counterexample)
CASES = [
    ("B.1", "1", "as-printed", 20_000, R, {"n": 1}),
    ("B.1", "2", "as-printed", 20_000, R, {"n": 1}),
    ("B.1", "1", "intended", 20_000, S, None),
    ("B.1", "2", "intended", 20_000, S, None),
    ("3.5", "row-range", None, 20_000, S, None),
    ("3.5", "norm-bound", None, 20_000, S, None),
    ("3.5", "as-used-in-B.4", None, 20_000, R, {"n": 2}),
    ("B.3", "lower", None, 20_000, S, None),
    ("B.3", "upper", None, 20_000, S, None),
    ("B.4", "main", "midrange", 20_000, R, {"d": 1}),
    ("B.4", "main", "adversarial", 20_000, R, {"d": 1}),
    ("B.4", "proof-bound", "midrange", 20_000, R, {"d": 2}),
    ("B.4", "proof-bound", "adversarial", 20_000, R, {"d": 2}),
    ("B.4", "proof-step-W", "midrange", 20_000, R, {"d": 2}),
    ("D.4", "main", None, 20_000, S, None),
    ("D.5", "main", "as-printed", 20_000, R, None),
    ("D.5", "main", "intended", 20_000, S, None),
    ("D.6", "1", "attention", 200_000, R, {"d": 3}),
    ("D.6", "1", "literal", 20_000, R, None),
    ("D.6", "2", "attention", 20_000, R, None),
    ("D.7", "main", "as-printed", 20_000, R, {"n": 1}),
    ("D.7", "main", "intended", 60_000, R, {"n": 1, "d": 4}),
    ("D.8", "1", "as-printed", 20_000, R, {"n": 1, "d": 2}),
    ("D.8", "2", "as-printed", 20_000, R, None),
    ("C.1", "1", "attention", 20_000, R, None),
    ("C.1", "1", "attention-free-K", 20_000, R, None),
    ("C.1", "2", "attention", 20_000, R, None),
    ("C.1", "2", "attention-free-K", 20_000, R, None),
    ("C.2", "1", None, 200_000, R, {"n": 2, "d": 3}),
    ("C.2", "2", None, 20_000, R, None),
    ("C.2", "3", None, 20_000, R, None),
    ("D.1", "parallel", None, 20_000, F, None),
    ("D.1", "identity", None, 20_000, F, None),
    ("D.1", "first-layer", None, 20_000, F, None),
]


@pytest.mark.parametrize("cid,part,reading,budget,verdict,dims", CASES, ids=lambda x: str(x) if isinstance(x, str) else None)
def test_verdict_from_scratch(cid, part, reading, budget, verdict, dims, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no stored counterexample anywhere in sight
    r = run_check(check_of(cid, part=part, reading=reading), SearchConfig(seed=0, budget=budget))
    if verdict == S and r.verdict is Verdict.INCONCLUSIVE:
        # equality cases through exp: ties the certificate could not sign (issue 13), no violation
        assert r.stats.tight_undecided > 0 and "tight" in r.message, r.message
    else:
        assert r.verdict is Verdict(verdict), (r.verdict, r.message, r.stats.best_relative_margin)
    if r.verdict in (Verdict.SURVIVED, Verdict.INCONCLUSIVE):
        assert r.stats.evaluations >= budget
        assert r.stats.best_relative_margin is not None and r.stats.best_relative_margin >= 0
    else:
        assert r.certified and r.method in ("exact", "interval")
        assert r.counterexample.shrunk
        for name, size in (dims or {}).items():
            assert r.counterexample.dims[name] == size, r.counterexample.dims
    assert not list(tmp_path.iterdir())  # the search wrote nothing


def test_strict_b_1_fails_at_an_exact_equality():
    r = run_check(check_of("B.1", part="1", reading="as-printed"), SearchConfig(seed=0, budget=8_000))
    assert r.method == "exact" and "equal" in r.counterexample.certificate
    assert r.counterexample.margin == "0"
    # the hand derivation's equality case: b = -eps 1
    assert r.counterexample.vars["b"] == [f"-{r.counterexample.vars['eps']}"] * r.counterexample.dims["n"]


def test_loose_bounds_stay_loose():
    # D.4 is Lemma B.2 with eps = ||b||: sup lhs/rhs is 1/4; D.5 (intended) has 1/8
    r = run_check(check_of("D.4"), SearchConfig(seed=1, budget=20_000))
    assert 0.15 < r.stats.max_ratio <= 0.25 + 1e-9
    r = run_check(check_of("D.5", reading="intended"), SearchConfig(seed=1, budget=20_000))
    assert 0.05 < r.stats.max_ratio <= 0.125 + 1e-9


def test_lemma_c_2_part_1_hand_counterexample_is_certified():
    """Hand derivation: d = 3 breaks Part 1 (certified here without any search).

    n = 2, X_0 rows +-phi_0 (1, 1, 1), phi_0 = 6/25, eta = 1, every weight 1: the attention puts
    0.957 on the own row, K ||Res(X_1)|| = 1.54 > eps_1 = 0.96.
    """
    check = check_of("C.2", part="1")
    L, H, n, d = 2, 1, 2, 3
    phi = 6 / 25
    ones = np.ones((1, L, H, d, d))
    data = dict(eta=np.array([1.0]), phi0=np.array([phi]), X0=np.array([[[phi] * d, [-phi] * d]]), Wq=ones, Wk=ones, Wv=ones, V=np.ones((1, d, d)))
    dims = dict(L=L, H=H, n=n, d=d)
    cert = Certifier(30).certify(check, exactify(check, data, 0, dims), dims)
    assert cert.violated and cert.method == "interval"
    assert 1.54 < float(cert.lhs) < 1.55 and float(cert.rhs) == pytest.approx(0.96)
