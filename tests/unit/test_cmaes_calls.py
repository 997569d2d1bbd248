"""The search's access to cmaes: its CMA class without scipy.stats, and no floating-point warnings."""

import subprocess
import sys
import textwrap
import warnings

import numpy as np

from verifier.search.cmaes_calls import cma_class, quiet


def test_cma_comes_without_scipy_stats_and_scipy_stats_still_imports_after():
    script = textwrap.dedent("""
        import sys
        from verifier.search.cmaes_calls import cma_class
        CMA = cma_class()
        import cmaes
        assert CMA is cmaes.CMA
        assert "scipy.stats" not in sys.modules
        import scipy.stats
        assert scipy.stats.norm.cdf(0.0) == 0.5
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr


def test_a_collapsed_covariance_stops_cmaes_without_a_warning():
    CMA = cma_class()
    opt = CMA(mean=np.zeros(2), sigma=0.3, seed=0)
    opt._D = np.array([1.0, 0.0])  # an eigenvalue 0: the condition number is infinite
    opt._B = np.eye(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with quiet():
            assert opt.should_stop()
