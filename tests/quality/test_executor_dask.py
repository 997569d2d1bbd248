"""A seed gives the same result on Dask workers as in-process and on the process pool.

One ``LocalCluster`` of 2 worker processes (one thread each) serves the whole module.  Its
workers are *spawned*: they share no memory with the test, so a check reaches them only by
value -- which the claims of a pack written to a temporary folder (importable by no other
process) put to the test.
"""

from __future__ import annotations

import dataclasses
import os
from fractions import Fraction

import numpy as np
import pytest

from tests.conftest import check_of
from verifier.audit import run_checks
from verifier.engine import SearchConfig, run_check
from verifier.runner import ForkedRunner, SerialRunner
from verifier.runner.dask import DaskRunner, by_value_roots
from verifier.registry import load_packs

if os.environ.get("CI") != "true":  # in CI the test extra installs it: a missing Dask fails there
    pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install -e '.[dask]')")


@pytest.fixture(scope="module")
def dask():
    with DaskRunner.local(2) as runner:
        yield runner


@pytest.fixture(scope="module")
def process():
    with ForkedRunner(2) as runner:
        yield runner


def _without_timings(result):
    cx = result.counterexample
    if cx is not None and cx.found_by is not None:
        cx = dataclasses.replace(cx, found_by=dataclasses.replace(cx.found_by, seconds=0.0))
    return dataclasses.replace(result, seconds=0.0, counterexample=cx)


def _same_everywhere(check, config, dask, process):
    serial = _without_timings(run_check(check, config, runner=SerialRunner()))
    assert _without_timings(run_check(check, config, runner=process)) == serial
    assert _without_timings(run_check(check, config, runner=dask)) == serial
    return serial


GENERATED_PACK = '''
"""Claims drawn from seed {seed}: sum_i (x_i - a)^2 + c >= sum_i (x_i - a) holds iff c >= n/4."""
from verifier import Claim, Dim, Part, Vector


def square_sum(ctx, y):
    return ctx.sum_all(y * y)


def _claim(ident, a, c, n_max):
    # the sides call a module-level function: plain pickle would name it by this pack's private module
    lhs = lambda ctx, v: square_sum(ctx, v.x - ctx.const(a)) + ctx.const(c)
    rhs = lambda ctx, v: ctx.sum_all(v.x - ctx.const(a))
    return Claim(id=ident, paper="dask-generated", title="a shifted square", statement=f"sum (x_i - {{a}})^2 + {{c}} >= sum (x_i - {{a}})",
                 dims=[Dim("n", 1, n_max)], variables=[Vector("x", "n", lo=-4, hi=4)],
                 parts=[Part("main", lhs=lhs, rhs=rhs, relation=">=")])


claims = [_claim("false", "{a}", "{c_false}", {n_max}), _claim("true", "{a}", "{c_true}", {n_max})]
'''


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """A false and a true claim from a seeded family (random centre, offset, dimension), as a
    pack in a folder: loaded under a private module name no worker can import."""
    rng = np.random.default_rng(20261123)
    n_max = int(rng.integers(1, 4))
    a = Fraction(int(rng.integers(-9, 10)), int(rng.integers(2, 8)))
    c_false = Fraction(int(rng.integers(1, 5)), int(rng.integers(20, 40)))  # < 1/4 <= n/4: fails at x_i = a + 1/2
    c_true = Fraction(n_max, 4) + Fraction(int(rng.integers(1, 5)), int(rng.integers(5, 9)))
    path = tmp_path_factory.mktemp("generated") / "generated_pack.py"
    path.write_text(GENERATED_PACK.format(seed=20261123, a=a, c_false=c_false, c_true=c_true, n_max=n_max))
    registry = load_packs([str(path)])
    assert not registry.errors, registry.errors
    return {claim.id: claim.checks()[0] for claim in registry}


def test_a_refuted_pack_check_gives_the_same_counterexample(dask, process):
    for check, seed in [(check_of("4.1", reading="as-printed"), 3), (check_of("3.3", part="2", reading="as-printed"), 7)]:
        result = _same_everywhere(check, SearchConfig(seed=seed, budget=12_000, batch=1024), dask, process)
        assert result.verdict.value == "refuted" and result.counterexample is not None


def test_a_surviving_pack_check_gives_the_same_statistics(dask, process):
    result = _same_everywhere(check_of("B.2"), SearchConfig(seed=1, budget=8_000, batch=1024), dask, process)
    assert result.verdict.value == "survived"


def test_a_generated_claim_from_a_folder_travels_by_value(generated, dask, process):
    false, true = generated["false"], generated["true"]
    roots = by_value_roots(false)
    assert roots and all(r.startswith("_verifier_pack_") for r in roots)
    config = SearchConfig(seed=11, budget=10_000, batch=1024)
    refuted = _same_everywhere(false, config, dask, process)
    assert refuted.verdict.value == "refuted"
    survived = _same_everywhere(true, config, dask, process)
    assert survived.verdict.value == "survived"


def test_whole_checks_side_by_side_on_dask_give_the_serial_results(generated, dask):
    # each check's worker connects a client of its own to the scheduler (a client cannot cross a fork)
    checks = [check_of("4.1", reading="as-printed"), check_of("B.2"), generated["false"], generated["true"]]
    config = SearchConfig(seed=5, budget=5_000)
    serial = run_checks(checks, config)
    shared = run_checks(checks, dataclasses.replace(config, jobs=2, executor=dask.address.replace("tcp://", "dask://")))
    assert [_without_timings(r) for r in shared.results] == [_without_timings(r) for r in serial.results]


def test_a_local_cluster_closes_with_its_runner():
    with DaskRunner.local(1) as runner:
        assert runner.jobs == 1 and list(runner.imap(abs, [-4, 3])) == [4, 3]
    assert runner._client is None


def test_a_branch_and_bound_proof_is_the_same_on_every_executor(dask, process):
    from verifier.prove import make_proof_box, parse_boxes, parse_dims, prove

    check = check_of("4.2", part="1", reading="intended")
    domain = make_proof_box(check, parse_dims("n=1"), *parse_boxes(["a=-1:1", "eps=1/10:1"]))
    proofs = [prove(check, domain, "branch-and-bound", 60.0, 50, executor=ex) for ex in (SerialRunner(), process, dask)]
    assert proofs[0].result.verdict.value == "proved" and proofs[0].details.boxes_examined > 64  # more than one round
    untimed = [(dataclasses.replace(p.result, seconds=0.0),
                dataclasses.replace(p.details, attempts=tuple(dataclasses.replace(a, seconds=0.0) for a in p.details.attempts)))
               for p in proofs]  # the same boxes, the same answer: only the clock differs
    serial, *others = untimed
    assert others == [serial, serial]


class _NeedsAModuleWorkersLack:
    """Unpickles by importing a module no worker has (as a check would that names an uninstalled library)."""

    def __reduce__(self):
        return (__import__, ("no_such_module_on_any_worker",))


def test_a_worker_that_cannot_read_a_task_names_what_it_lacks(dask):
    from verifier.runner.dask import WorkerEnvironmentError

    with pytest.raises(WorkerEnvironmentError, match="No module named 'no_such_module_on_any_worker'.*needs ml-claim-verifier"):
        list(dask.imap(repr, [_NeedsAModuleWorkersLack()]))
    assert list(dask.imap(abs, [-3, 4])) == [3, 4]  # the cluster goes on
