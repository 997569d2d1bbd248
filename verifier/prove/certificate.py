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
    proof (after the reductions of the certificate; the names are the coordinates' labels, listed
    in the certificate's notes).  ``hints["entry"]``: which entry of the margin (an elementwise
    part has several; 0 for a claim with one) the leaf closes; absent when it closes every entry
    (``hypothesis-fails``, the images).  ``method`` says which argument closed it:

    * ``enclosure``: the entry's enclosure on the box is >= 0 (> 0 for a strict claim).
      ``hints["form"]``: ``centred`` (the value at the centre plus the gradient enclosed over the
      box times the half-widths, intersected with the plain interval evaluation), ``stretched``
      (the same over the box stretched to the anchor u = 0 of a relation-bound variable),
      ``anchored`` (the mean-value form anchored at u = 0) or ``second-order`` (the value and
      gradient at the exact centre ``hints["centre"]``, the Hessian enclosed over the box times
      the squared half-widths); ``hints["prec"]``: the bits of the balls;
    * ``hypothesis-fails``: the hypothesis ``hints["condition"]`` (an index into the certificate's
      ``hypothesis`` reduction's list, then the maps' constraints) is certainly false on the box;
    * ``monotone``: the entry's gradient has a certain sign in some coordinates on the box, so its
      least value on the box is on the face ``hints["face"]`` (a box: [lo, hi] per coordinate, in
      order); there it is closed by ``hints["then"]``: ``enclosure`` or ``face-identity`` (the
      entry vanishes identically on that face: sympy);
    * ``touching-point``: an argument anchored at the exact point ``hints["point"]`` (one exact
      rational per coordinate), where the entry is exactly 0 when ``hints["equality"]`` (else
      certainly > 0); ``hints["argument"]`` is one of

      - ``from-point``: every coordinate's gradient enclosed over the box points away from the
        point (mean-value theorem); with ``hints["substitution"]`` ("coordinate j = s^q") the box's
        coordinate j is written as s^q, s in ``hints["s"]``, and the gradient in s is >= 0;
      - ``tangent-factor``: one active coordinate ``hints["coordinate"]``; the Taylor coefficients
        at the point below ``hints["order"]`` (k) are exactly 0, and h(t) = c_k + c_(k+1) t +
        c_(k+2)(box) t^2 lies in ``hints["h"]`` (its ends), of the sign of t^k on the box;
      - ``convex``: the gradient at the point is 0 in the coordinates ``hints["interior"]`` and
        points into the box in ``hints["inward"]``; the Hessian enclosed over the box passes the
        Gershgorin test with the inward first-order terms absorbing its mixed entries;
      - ``normal-to-set``: no point; the entry and its derivatives below ``hints["order"]`` along
        ``hints["direction"]`` vanish identically on the set ``hints["set"]`` (a diagonal
        x_i = x_j: sympy), and h as above, from the box's projections onto the set, keeps the sign;

      ``hints["over"]``: when present, the argument was made over that region (a box around the
      point holding this one) and the leaf's ``box`` *is* that region: boxes inside it are
      covered by it and have no leaf of their own;
    * ``face-identity``: the margin vanishes identically on a face the box reduces to;
    * ``symmetric-image``: the box is the image of another under the certificate's
      ``permutation`` reduction (no point of it is sorted);
    * ``scaled-image``: the box lies in the root box halved about 0 and the claim is homogeneous
      of degree ``hints["degree"]`` (the ``scaling`` reduction): each of its points is 2^-j times a
      point of the shell the other leaves cover.

    Coq's ``interval`` re-checks an ``enclosure`` leaf with ``i_bisect`` over the box and
    ``i_taylor`` of degree 1 (``centred``) or 2 (``second-order``); the ``touching-point``
    arguments need their Taylor coefficients (``i_taylor`` at degree ``order + 2``) and, where
    ``equality``, the exact vanishing of the lower ones (``field``/``ring``, or a rewriting).
    """

    box: Mapping[str, tuple[str, str]]
    method: str
    hints: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Reduction:
    """A step that turns the stated claim into the one the rest of the certificate proves.

    ``kind``: ``permutation`` | ``shift`` | ``scaling`` | ``chart`` | ``substitution`` |
    ``hypothesis``.  ``statement``: one sentence a reader can check.  ``data``: what a checker
    needs to re-derive it:

    * ``permutation``: ``{"sorted": [coordinate labels kept in order], "dimension": name}``;
    * ``shift``: ``{"shifted": [labels], "bounds": [lo, hi]}`` (the first is fixed at 0);
    * ``scaling``: ``{"degree": k, "half": {label: [lo, hi]}}`` (the root halved about 0);
    * ``chart``: ``{"variable": name, "kind": set kind, "map": the map's class}``, or
      ``{"variable", "map": "relation"}`` for b = near + radius u;
    * ``hypothesis``: ``{"hypotheses": [texts]}`` (the conditions a ``hypothesis-fails`` leaf indexes);
    * ``substitution`` (SMT in an exponential basis or with exp abstracted): ``{"y": {name:
      "exp(x/q)"}}`` or ``{"exponents": [...], "unknowns": [...]}``.
    """

    kind: str
    statement: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ProofCertificate:
    """What a proof of one check on one domain rests on, for a checker that trusts none of it.

    ``method``: the strategy that proved it.  ``dims``: the sizes proved.  ``domain``: the
    proof domain as :meth:`verifier.prove.domain.ProofBox.to_dict` writes it.  Exactly the fields
    the strategy can fill are set: ``leaves`` (branch and bound: every leaf box and its
    argument; together with the reductions they cover the domain), ``sos`` (a sum-of-squares /
    Positivstellensatz identity: ``{"variables": [...], "margin": "...", "terms": [...]}`` with
    exact rational coefficients), ``smt`` (the formulas z3 found unsatisfiable, as SMT-LIB 2
    text, one after another, for a checker that re-derives a certificate of its own: in the
    exponential basis and with exp abstracted every operand's formula; the plain SMT strategy
    does not record its formula yet, and says so in ``notes``), ``identity`` (the rewriting that
    shows lhs - rhs = 0: ``"<difference> = 0 by <rewriting>"``), ``points`` (the exact equality
    points the arguments used, coordinate label -> exact rational).
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
