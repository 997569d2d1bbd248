"""Float64 never decides: rounding makes true claims look false, and the re-check says so."""

import numpy as np

from tests.conftest import check_of
from verifier.certify import Certifier
from verifier.contexts import FloatContext
from verifier.engine import SearchConfig, run_check
from verifier.results import Verdict
from verifier.sampling import exactify


def test_fact_3_3_part_1_float_margins_do_go_negative_and_are_rejected():
    check = check_of("3.3", part="1")
    # entrywise nonnegative rank-one products are exact equality cases of part (1)
    rng = np.random.default_rng(0)
    u, w = rng.random((4000, 3, 1)), rng.random((4000, 1, 4))
    data = {"A": u, "B": w}
    ev = check.evaluate(FloatContext(), data, {"m": 3, "k": 1, "p": 4})
    negative = np.nonzero(np.asarray(ev.margin) < 0)[0]
    assert len(negative) > 0, "float64 rounding should make some margins negative"
    assert np.min(ev.margin[negative] / ev.scale[negative]) > -1e-14  # rounding-sized
    certifier = Certifier(50)
    for i in negative[:20]:
        cert = certifier.certify(check, exactify(check, data, int(i), {"m": 3, "k": 1, "p": 4}), {"m": 3, "k": 1, "p": 4})
        assert not cert.violated
        assert cert.status == "tight" and cert.method == "exact"  # exactly equal, not violated


def test_fact_3_3_part_1_is_never_reported_refuted():
    for seed in range(3):
        r = run_check(check_of("3.3", part="1"), SearchConfig(seed=seed, budget=60_000))
        assert r.verdict is Verdict.SURVIVED
        assert r.stats.float_violations > 0  # the search met rounding "violations"...
        assert r.stats.rejected_by_recheck == r.stats.rechecked > 0  # ...and the re-check rejected each
        assert r.stats.best_relative_margin == 0.0  # equality is as close as it gets
