"""The second pack (examples/attention-classics): every verdict from a fresh seed, with no
stored files, agrees with the hand derivation in the claim's module; seeded families of the
pack's misreadings are refuted, and their true versions survive; the author's guide's
Python blocks run as written.

The pack is loaded through the ``verifier.packs`` entry point when it is installed, and
from its directory otherwise.
"""

from __future__ import annotations

import random
import re
import sys
from fractions import Fraction
from importlib import metadata
from pathlib import Path

import pytest

from verifier import Claim, Dim, Hypothesis, Part, Reading, Scalar, Vector
from verifier.engine import SearchConfig, run_check
from verifier.library import layer_norm, softmax, vector_norm
from verifier.registry import Registry
from verifier.results import Verdict

ROOT = Path(__file__).resolve().parents[2]
PACK_DIR = ROOT / "examples" / "attention-classics"
GUIDE = ROOT / "docs" / "authoring.md"


def _pack_module() -> str:
    for ep in metadata.entry_points(group="verifier.packs"):
        if ep.name == "attention-classics":
            return ep.value
    if str(PACK_DIR) not in sys.path:
        sys.path.insert(0, str(PACK_DIR))
    return "attention_classics"


PACK = Registry.from_package(_pack_module())

# (claim, part, reading) -> the verdict each module's hand derivation predicts
EXPECTED = {
    ("lse-bounds", "lower", "as-printed"): Verdict.SURVIVED,
    ("lse-bounds", "upper", "as-printed"): Verdict.SURVIVED,
    ("lse-equality", "lower", "as-printed"): Verdict.REFUTED,
    ("lse-equality", "upper", "as-printed"): Verdict.SURVIVED,
    ("softmax-lipschitz", "1", "as-printed"): Verdict.SURVIVED,
    ("softmax-lipschitz", "2", "as-printed"): Verdict.SURVIVED,
    ("softmax-lipschitz", "inf", "as-printed"): Verdict.SURVIVED,
    ("softmax-lipschitz", "inf-to-1", "across-norms"): Verdict.REFUTED,
    ("softmax-mixed-norms", "1-inf", "as-printed"): Verdict.SURVIVED,
    ("softmax-mixed-norms", "inf-1", "as-printed"): Verdict.SURVIVED,
    ("softmax-mixed-norms", "2-1", "as-printed"): Verdict.SURVIVED,
    ("softmax-mixed-norms", "2-2", "as-printed"): Verdict.SURVIVED,
    ("rmsnorm-invariance", "re-scaling", "as-printed"): Verdict.SURVIVED,
    ("rmsnorm-invariance", "re-scaling", "with-eps"): Verdict.REFUTED,
    ("rmsnorm-invariance", "re-centering", "re-centering"): Verdict.REFUTED,
    ("layernorm-invariance", "inputs", "as-printed"): Verdict.SURVIVED,
    ("layernorm-invariance", "inputs", "with-eps"): Verdict.REFUTED,
    ("rank-collapse-step", "attention-only", "as-printed"): Verdict.SURVIVED,
    ("rank-collapse-step", "with-values", "with-values"): Verdict.REFUTED,
    ("dp-attention-lipschitz", "main", "K=10"): Verdict.REFUTED,
    ("dp-attention-lipschitz", "main", "K=100"): Verdict.REFUTED,
    ("dong-P-norm", "main", "inf"): Verdict.SURVIVED,
    ("dong-P-norm", "main", "l1"): Verdict.REFUTED,
}
CHECKS = [ch for c in PACK for ch in c.checks()]


def test_pack_has_six_statements_each_quoted_located_derived():
    assert len(PACK) >= 6
    assert {ch.key for ch in CHECKS} == set(EXPECTED)
    for claim in PACK:
        doc = sys.modules[_module_of(claim)].__doc__
        for heading in ("As printed", "Reading", "Hand derivation", "Verdict"):
            assert heading in doc, (claim.id, heading)
        assert claim.location and claim.paper and "read at http" in doc.replace("\n", " ")


def _module_of(claim: Claim) -> str:
    for name, mod in list(sys.modules.items()):
        if getattr(mod, "claim", None) is claim:
            return name
    raise LookupError(claim.id)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.label)
def test_verdict_agrees_with_the_hand_derivation(check, seed):
    expected = EXPECTED[check.key]
    budget = 40_000 if expected is Verdict.SURVIVED else 200_000
    result = run_check(check, SearchConfig(seed=seed, budget=budget))
    if expected is Verdict.SURVIVED and result.verdict is Verdict.INCONCLUSIVE:
        # an identity through sqrt or exp: its equality points are ties no ball can sign, which
        # the engine reports as inconclusive, never as holding (issue 13); nothing else may be in doubt
        s = result.stats
        assert s.tight_undecided > 0 and s.undefined == 0 and result.counterexample is None, result.message
    else:
        assert result.verdict is expected, result.counterexample
    if expected is Verdict.REFUTED:
        assert result.certified and result.method in ("exact", "interval")


def _softmax_across_norms(constant: Fraction) -> Claim:
    return Claim(
        id="family-softmax",
        title="softmax from l_inf to l_1",
        statement=f"||softmax(x) - softmax(y)||_1 <= {constant} ||x - y||_inf",
        dims=[Dim("n", 2, 5)],
        variables=[Vector("x", "n"), Vector("y", "n")],
        parts=[
            Part(
                "main",
                lhs=lambda ctx, v: vector_norm(ctx, softmax(ctx, v.x) - softmax(ctx, v.y), 1),
                rhs=lambda ctx, v: ctx.const(constant) * vector_norm(ctx, v.x - v.y, "inf"),
            )
        ],
    )


@pytest.mark.parametrize("seed", range(3))
def test_seeded_constants_below_the_true_one_are_refuted_and_above_survive(seed):
    # the true constant from l_inf to l_1 is 1, approached only as x -> y: a constant drawn
    # below it is false, one drawn above it true
    rng = random.Random(seed)
    low = Fraction(rng.randint(50, 90), 100)
    high = Fraction(rng.randint(101, 150), 100)
    refuted = run_check(_softmax_across_norms(low).checks()[0], SearchConfig(seed=seed, budget=100_000))
    assert refuted.verdict is Verdict.REFUTED, low
    survived = run_check(_softmax_across_norms(high).checks()[0], SearchConfig(seed=seed, budget=20_000))
    assert survived.verdict is Verdict.SURVIVED, high


@pytest.mark.parametrize("seed", range(3))
def test_seeded_layernorm_eps_breaks_scale_invariance(seed):
    rng = random.Random(seed)
    eps = f"1e-{rng.randint(3, 9)}"
    n = rng.randint(2, 5)
    claim = Claim(
        id="family-layernorm",
        title="LayerNorm with eps is scale invariant",
        statement=f"LN_eps(a x) = LN_eps(x), eps = {eps}",
        dims=[Dim("n", n, n)],
        variables=[Vector("x", "n"), Scalar("a", lo=0)],
        hypotheses=[Hypothesis("a > 0", lambda ctx, v: v.a, strict=True)],
        parts=[
            Part(
                "main",
                lhs=lambda ctx, v: layer_norm(ctx, v.a[:, None] * v.x, v.params["eps"]),
                rhs=lambda ctx, v: layer_norm(ctx, v.x, v.params["eps"]),
                relation="==",
            )
        ],
        readings=[Reading("eps", f"eps = {eps}", params={"eps": eps})],
    )
    result = run_check(claim.checks()[0], SearchConfig(seed=seed, budget=100_000))
    assert result.verdict is Verdict.REFUTED, eps


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_every_python_block_of_the_authors_guide_runs():
    """... and prints no warning from the engine (a RuntimeWarning from numpy's object loops,
    once: "overflow encountered in _log (vectorized)" from the symbolic context)."""
    import warnings

    blocks = _python_blocks(GUIDE.read_text())
    assert len(blocks) >= 4
    namespace: dict = {"__name__": "authoring_guide"}
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for i, block in enumerate(blocks):
            try:
                exec(compile(block, f"{GUIDE.name}[block {i}]", "exec"), namespace)
            except Exception as exc:  # pragma: no cover - the message names the block
                pytest.fail(f"docs/authoring.md python block {i} raised {exc!r}:\n{block}")
    engine = [str(w.message) for w in seen if "verifier" in str(w.filename)]
    assert not engine, engine
