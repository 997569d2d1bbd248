"""How the search reaches the ``cmaes`` library: its CMA class, imported without scipy.stats, and
numpy's floating-point warnings kept inside the library's own arithmetic.

The target phase owns the numerics it calls.  CMA-ES on a collapsing covariance divides by a
zero eigenvalue in its own stopping test (the condition number is infinite, so it stops, as it
should) and numpy prints ``RuntimeWarning: divide by zero`` to the user's terminal; every call
into the library runs under ``quiet()``, a scoped ``np.errstate`` (thread-local, restored on
exit), never a process-wide warnings filter.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

_IMPORT_LOCK = threading.Lock()


def quiet():
    """The floating-point error state for a call into cmaes: none of its divisions warns."""
    return np.errstate(all="ignore")


def cma_class():
    """``cmaes.CMA``, importing the package without scipy.stats when nothing has imported it yet.

    ``import cmaes`` imports every optimiser the package ships; two of them (CMA-ES with margin,
    ``CMAwM`` and ``CatCMAwM``) take ``chi2.ppf`` and ``norm.cdf`` from scipy.stats when it
    imports, and cmaes's own ``_stats`` when it does not.  scipy.stats costs 0.6-0.9 s per process
    (``python -X importtime``; the verifier needs only scipy.special, already loaded) and we use
    ``CMA`` alone, which touches neither function.  So scipy.stats is marked unimportable for the
    duration of this one import, the package takes its documented fallback, and the mark is
    removed at once: a later ``import scipy.stats`` anywhere works as usual.
    """
    if "cmaes" not in sys.modules and "scipy.stats" not in sys.modules:
        with _IMPORT_LOCK:
            if "cmaes" not in sys.modules and "scipy.stats" not in sys.modules:
                sys.modules["scipy.stats"] = None  # makes `from scipy import stats` raise ImportError
                try:
                    import cmaes  # noqa: F401
                finally:
                    del sys.modules["scipy.stats"]
    from cmaes import CMA

    return CMA


def ask_population(opt) -> np.ndarray:
    """``opt.ask()`` for a whole population: the same points, drawn in the same order.

    The one place the verifier reads cmaes's internals (it offers no public way to ask for a
    population at once); every other layout of the library takes ``ask`` itself.

    ``CMA.ask`` (cmaes 0.10-0.13) draws ``z ~ N(0, I)`` from the optimiser's own generator
    and returns ``mean + sigma * (B diag(D)) z``, rebuilding ``B diag(D)`` at every call; on
    claims that cost microseconds that bookkeeping was most of the target phase.  Here the
    matrix is built once per population and each point is the same matrix-vector product.
    Any other layout of the library (bounds, renamed internals) takes ``ask`` itself;
    ``tests/unit/test_search_phases.py`` checks the two agree bit for bit.
    """
    pop = opt.population_size
    try:
        if getattr(opt, "_bounds", None) is not None:
            raise AttributeError("bounded: ask() resamples")
        rng, n = opt._rng, opt._n_dim
        B, D = opt._eigen_decomposition()
        mean, sigma = opt._mean, opt._sigma
    except AttributeError:
        return np.array([opt.ask() for _ in range(pop)])
    bd = B.dot(np.diag(D))
    out = np.empty((pop, n))
    for i in range(pop):
        out[i] = mean + sigma * bd.dot(rng.randn(n))
    return out

__all__ = ["ask_population", "cma_class", "quiet"]
