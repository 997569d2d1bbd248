"""What a proof leaves behind for a checker smaller than the prover: plain data, no code.

A refutation is re-checked by exact arithmetic and by Coq's kernel; a proof must be too.  Each
proof strategy returns, besides its verdict, a :class:`ProofCertificate`: what an independent
checker needs to re-prove the claim on the proof's domain without trusting the prover -- the
leaves of a branch and bound (boxes in exact rationals, each with the argument that closed
it), the reductions applied before it (an invariance, a chart, a substitution: each as a
statement that implies the original), a sum-of-squares identity with rational coefficients,
or the rewriting of an identity.  Nothing here is evaluated; :mod:`verifier.coq` turns a
certificate into a Coq script, and a certificate Coq cannot re-check is labelled so.

Every number is an exact rational written as a string (``"-3/7"``, ``"0"``): a float64 box
bound is a dyadic rational, written exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Mapping

#: the schema of a stored certificate; raised when its meaning changes
CERTIFICATE_SCHEMA = 1


def exact(x) -> str:
    """An exact rational as a string: ints, Fractions, flint fmpq and floats (dyadic, exactly)."""
    return str(Fraction(x) if not hasattr(x, "p") else Fraction(int(x.p), int(x.q)))


@dataclass(frozen=True)
class Leaf:
    """One closed box of a branch and bound, and why it is closed.

    ``box``: coordinate name -> (lo, hi), exact rationals as strings, in the coordinates of the
    proof (after the reductions of the certificate).  ``method`` says which argument closed it:

    * ``enclosure``: the margin's enclosure on the box is >= 0 (> 0 for a strict claim);
    * ``hypothesis-fails``: some hypothesis is certainly false on the whole box (``hints``:
      which one);
    * ``monotone``: the margin is monotone in one coordinate on the box, so the box reduces to a
      face (``hints``: coordinate, direction, the face);
    * ``touching-point``: the box contains an exact equality point; the margin is >= 0 by the
      argument named in ``hints["argument"]`` (``tangent-factor``, ``convex``, ``monotone-from-point``,
      with the point as exact numbers);
    * ``face-identity``: the margin vanishes identically on a face the box reduces to;
    * ``symmetric-image``: the box is the image of another under the certificate's invariance.

    ``hints``: what a kernel check needs to go through without search (Coq Interval's bisection
    depth and Taylor degree, the face, the point, ...).
    """

    box: Mapping[str, tuple[str, str]]
    method: str
    hints: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reduction:
    """A step that turns the stated claim into the one the rest of the certificate proves.

    ``kind``: ``permutation`` | ``shift`` | ``scaling`` | ``chart`` | ``substitution`` |
    ``hypothesis``.  ``statement``: one sentence a reader can check.  ``data``: what a checker
    needs to re-derive it (the permutations as index lists, the chart's map as sympy ``srepr``
    text, the substitution and its inverse, ...).
    """

    kind: str
    statement: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ProofCertificate:
    """What a proof of one check on one domain rests on, for a checker that trusts none of it.

    ``method``: the strategy that proved it.  ``dims``: the sizes proved.  ``domain``: the
    proof domain as :meth:`verifier.prove.domain.ProofBox.to_dict` writes it.  Exactly the fields
    the strategy can fill are set: ``leaves`` (branch and bound), ``sos`` (a sum-of-squares /
    Positivstellensatz identity: ``{"variables": [...], "margin": "...", "terms": [...]}`` with
    exact rational coefficients), ``smt`` (the formula z3 refuted, as SMT-LIB 2 text, for a
    checker that re-derives a certificate of its own), ``identity`` (the rewriting that shows
    lhs - rhs = 0), ``points`` (exact equality points the argument used).
    """

    method: str
    dims: Mapping[str, int] = field(default_factory=dict)
    domain: Mapping[str, Any] = field(default_factory=dict)
    reductions: tuple[Reduction, ...] = ()
    leaves: tuple[Leaf, ...] = ()
    sos: Mapping[str, Any] | None = None
    smt: str | None = None
    identity: str | None = None
    points: tuple[Mapping[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    schema: int = CERTIFICATE_SCHEMA

    def to_dict(self) -> dict:
        """Plain JSON-able data, keys in a fixed order."""
        return {
            "schema": self.schema,
            "method": self.method,
            "dims": dict(self.dims),
            "domain": dict(self.domain),
            "reductions": [{"kind": r.kind, "statement": r.statement, "data": dict(r.data)} for r in self.reductions],
            "leaves": [{"box": {k: list(v) for k, v in leaf.box.items()}, "method": leaf.method, "hints": dict(leaf.hints)}
                       for leaf in self.leaves],
            "sos": None if self.sos is None else dict(self.sos),
            "smt": self.smt,
            "identity": self.identity,
            "points": [dict(p) for p in self.points],
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ProofCertificate":
        return cls(
            method=data["method"],
            dims=dict(data.get("dims", {})),
            domain=dict(data.get("domain", {})),
            reductions=tuple(Reduction(r["kind"], r["statement"], dict(r.get("data", {}))) for r in data.get("reductions", ())),
            leaves=tuple(Leaf({k: (v[0], v[1]) for k, v in leaf["box"].items()}, leaf["method"], dict(leaf.get("hints", {})))
                         for leaf in data.get("leaves", ())),
            sos=data.get("sos"),
            smt=data.get("smt"),
            identity=data.get("identity"),
            points=tuple(dict(p) for p in data.get("points", ())),
            notes=tuple(data.get("notes", ())),
            schema=int(data.get("schema", CERTIFICATE_SCHEMA)),
        )


__all__ = ["CERTIFICATE_SCHEMA", "Leaf", "ProofCertificate", "Reduction", "exact"]
