"""ProofDomain: the public API a claim uses to say where its surviving checks are proved."""

from fractions import Fraction

import pytest

from verifier import Claim, ClaimDefinitionError, Dim, Part, ProofDomain, Reading, Scalar, Vector
from verifier.claims import DEFAULT_PROOF_BOX, Matrix


def _claim(**kw):
    base = dict(
        id="t", title="t", statement="t", dims=[Dim("n", 1, 4), Dim("d", 2, 3)],
        variables=[Vector("x", "n"), Scalar("eps", lo=0), Matrix("B", "n", "d", radius="eps")],
        parts=[Part("main", lhs=lambda ctx, v: v.eps, rhs=lambda ctx, v: v.eps)],
    )
    base.update(kw)
    return Claim(**base)


def test_default_is_the_smallest_non_degenerate_dims_and_the_default_box():
    """At n = 1 a sum has one term; the default is 2 where the range allows it, else the range's own size."""
    check = _claim().checks()[0]
    spec = check.proof_domain
    assert spec.sizes(check.dims) == {"n": 2, "d": 2}
    assert spec.box == tuple(Fraction(b) for b in DEFAULT_PROOF_BOX) and not spec.box_stated
    one = Reading("n=1", "one row", dims=(Dim("n", 1, 1),))
    narrowed = _claim(readings=[Reading("as-printed", "a"), one], dims=[Dim("n", 1, 4), Dim("d", 3, 5)]).checks(reading="n=1")[0]
    assert narrowed.proof_domain.sizes(narrowed.dims) == {"n": 1, "d": 3}
    assert ProofDomain(dims={"n": 1}).sizes(check.dims) == {"n": 1, "d": 2}
    assert ProofDomain(box=(-2, 2)).box_stated


def test_bounds_are_exact_values_as_written():
    spec = ProofDomain(box=(0.1, "1/3"), boxes={"eps": ("0.01", 2)})
    assert spec.box == (Fraction(1, 10), Fraction(1, 3))
    assert spec.boxes["eps"] == (Fraction(1, 100), Fraction(2))
    assert ProofDomain(box=None).box is None


@pytest.mark.parametrize("kw, words", [
    (dict(dims={"n": 0}), "n = 0"),
    (dict(dims={"n": 1.5}), "n = 1.5"),
    (dict(box=(2, 1)), "empty"),
    (dict(box=("x", 1)), "box"),
    (dict(boxes={"eps": (0,)}), "boxes['eps']"),
])
def test_bad_domains_are_refused_naming_the_value(kw, words):
    with pytest.raises(ClaimDefinitionError, match=words.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        ProofDomain(**kw)


@pytest.mark.parametrize("spec, words", [
    (ProofDomain(dims={"m": 2}), "unknown dimension 'm'"),
    (ProofDomain(dims={"n": 5}), "outside the check's range 1..4"),
    (ProofDomain(dims={"d": 1}), "outside the check's range 2..3"),
    (ProofDomain(boxes={"y": (0, 1)}), "unknown variable 'y'"),
    (ProofDomain(boxes={"B": (0, 1)}), "its relation to eps"),
])
def test_a_claim_refuses_a_domain_its_checks_cannot_use(spec, words):
    with pytest.raises(ClaimDefinitionError, match=words.replace(".", r"\.")):
        _claim(prove_on=spec)


def test_a_reading_that_narrows_a_dimension_is_checked_against_its_own_range():
    narrowed = Reading("d=2", "one size", dims=(Dim("d", 2, 2),))
    with pytest.raises(ClaimDefinitionError, match=r"\[d=2\].*outside the check's range 2\.\.2"):
        _claim(prove_on=ProofDomain(dims={"d": 3}), readings=[Reading("as-printed", "a"), narrowed])


def test_the_most_specific_domain_wins_reading_then_part_then_claim():
    on_claim, on_part, on_reading = ProofDomain(dims={"n": 2}), ProofDomain(dims={"n": 3}), ProofDomain(dims={"n": 4})
    parts = [Part("plain", lhs=lambda ctx, v: v.eps, rhs=lambda ctx, v: v.eps),
             Part("own", lhs=lambda ctx, v: v.eps, rhs=lambda ctx, v: v.eps, prove_on=on_part)]
    readings = [Reading("as-printed", "a"), Reading("narrow", "b", prove_on=on_reading)]
    claim = _claim(parts=parts, readings=readings, prove_on=on_claim)
    got = {ch.key[1:]: ch.proof_domain for ch in claim.checks()}
    assert got == {("plain", "as-printed"): on_claim, ("own", "as-printed"): on_part,
                   ("plain", "narrow"): on_reading, ("own", "narrow"): on_reading}
