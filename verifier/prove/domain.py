"""The box a proof ranges over: fixed dimensions and a box for every free variable.

A proof holds on a stated domain only, so the domain is data that travels with the verdict
and is printed with it.  A claim states it (:class:`~verifier.claims.ProofDomain`, or
``--dims``/``--box`` on the command line); :func:`make_proof_box` checks it against the claim
and fixes it as a :class:`ProofBox`.  Variables built by a relation (``B`` with
``||B - A|| <= eps``) or a relative kind (a derived value, a ball about another variable) are
not boxed: they range over everything the relation allows, given the boxed variables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from ..errors import VerifierError
from ..claims import Check, Variable


class ProofBoxError(VerifierError, ValueError):
    """A proof's dimensions or boxes that cannot be used with a claim (names the bad value)."""


Bounds = tuple[Fraction, Fraction]


@dataclass(frozen=True)
class ProofBox:
    """Dimensions, and ``[lo, hi]`` per free variable (``None``: unbounded, SMT only)."""

    dims: Mapping[str, int]
    boxes: Mapping[str, Bounds | None] = field(default_factory=dict)
    relations: tuple[str, ...] = ()  # texts of the relations that bound the other variables

    @property
    def bounded(self) -> bool:
        return all(b is not None for b in self.boxes.values())

    def describe(self, check: Check) -> str:
        variables = {v.name: v for v in check.variables}
        bits = []
        for name, box in self.boxes.items():
            var = variables[name]
            power = _power(var.concrete_shape(self.dims))
            if box is None and var.lo is not None:
                bits.append(f"{name} \u2265 {var.lo:g}" if not power else f"{name} \u2208 [{var.lo:g}, \u221e){power}")
            elif box is None and var.hi is not None:
                bits.append(f"{name} \u2264 {var.hi:g}" if not power else f"{name} \u2208 (\u2212\u221e, {var.hi:g}]{power}")
            elif box is None:
                bits.append(f"{name} \u2208 \u211d{power}")
            else:
                bits.append(f"{name} \u2208 [{_num(box[0])}, {_num(box[1])}]{power}")
        bits.extend(self.relations)
        dims = ", ".join(f"{k} = {v}" for k, v in self.dims.items())
        return (f"{dims}; " if dims else "") + ", ".join(bits)

    def to_dict(self) -> dict:
        return {
            "dims": dict(self.dims),
            "boxes": {k: None if b is None else [str(b[0]), str(b[1])] for k, b in self.boxes.items()},
            "relations": list(self.relations),
        }


def _power(shape):
    if not shape:
        return ""
    return "^(" + "\u00d7".join(map(str, shape)) + ")" if len(shape) > 1 else f"^{shape[0]}"


def _num(q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    as_float = float(q)
    return f"{as_float:g}" if Fraction(repr(as_float)) == q else str(q)


# ------------------------------------------------------------------------------ parsing
def parse_number(text: str) -> Fraction:
    try:
        return Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise ProofBoxError(f"not a number: {text!r} (use integers, decimals or fractions like 1/100)") from None


def parse_dims(text: str | None) -> dict[str, int]:
    """``"n=3,d=2"`` -> ``{"n": 3, "d": 2}``."""
    out: dict[str, int] = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ProofBoxError(f"dimension {item.strip()!r} is not NAME=SIZE")
        try:
            out[name] = int(value)
        except ValueError:
            raise ProofBoxError(f"dimension {name}: size {value.strip()!r} is not an integer") from None
    return out


def parse_interval(text: str) -> Bounds:
    lo, sep, hi = text.partition(":")
    if not sep:
        raise ProofBoxError(f"interval {text!r} is not LO:HI")
    lo_q, hi_q = parse_number(lo), parse_number(hi)
    if lo_q > hi_q:
        raise ProofBoxError(f"interval {text!r} is empty (lo > hi)")
    return lo_q, hi_q


def parse_boxes(items) -> tuple[Bounds | None, dict[str, Bounds]]:
    """``["-5:5", "eps=0.01:2"]`` -> (box of every entry, per-variable boxes)."""
    default, named = None, {}
    for item in items or ():
        name, sep, rest = item.partition("=")
        if sep:
            named[name.strip()] = parse_interval(rest)
        else:
            default = parse_interval(item)
    return default, named


# ----------------------------------------------------------------------------- building
def make_proof_box(check: Check, dims: Mapping[str, int], default: Bounds | None = None, named: Mapping[str, Bounds] | None = None,
                   own_bounds: bool = False) -> ProofBox:
    """Validate dims and boxes against a check; intersect boxes with the variables' own bounds.

    ``own_bounds``: ``default`` is only a default -- a variable that states both bounds is
    boxed by them, and a half-bounded one the default box misses is boxed from its bound.
    """
    named = dict(named or {})
    want = [d.name for d in check.claim.dims]
    missing = [d for d in want if d not in dims]
    if missing:
        raise ProofBoxError(f"claim {check.claim.id} needs every dimension fixed: missing {', '.join(missing)} (e.g. --dims {','.join(f'{d}=2' for d in want)})")
    unknown = [d for d in dims if d not in want]
    if unknown:
        raise ProofBoxError(f"claim {check.claim.id} has no dimension {unknown[0]!r}; dimensions: {', '.join(want) or 'none'}")
    for d in check.claim.dims:
        if dims[d.name] < d.lo:
            raise ProofBoxError(f"dimension {d.name} = {dims[d.name]} is below its least size {d.lo}")
    variables = {v.name: v for v in check.variables}
    for name in named:
        if name not in variables:
            raise ProofBoxError(f"claim {check.claim.id} has no variable {name!r}; variables: {', '.join(variables)}")
        if variables[name].radius is not None:
            raise ProofBoxError(f"{name} is bounded by its relation to {variables[name].radius}; box the variables it depends on instead")
    boxes: dict[str, Bounds | None] = {}
    relations = []
    for var in check.variables:
        if var.radius is not None:
            relations.append(_relation_text(var))
            continue
        relation = var.domain.proof_relation(var) if var.domain is not None else None
        if relation is not None:  # a relative kind, computed from or bounded by the boxed variables; its bounds are hypotheses
            relations.append(relation)
            continue
        box = named.get(var.name, default if not own_bounds else _own_box(var, default))
        natural = var.domain.entry_bounds() if var.domain is not None else None
        if natural is not None:
            # every entry of these sets lies in a true box ([0, total] for a simplex, [-1, 1]
            # for unit vectors, [-r, r] for a sphere), so a claim on a kind needs no --box and
            # the default box does not cut the set; the set itself is stated by the membership
            # hypotheses
            if var.name not in named and not (box is not None and box[0] <= natural[0] and natural[1] <= box[1]):
                box = None
            box = natural if box is None else (max(box[0], natural[0]), min(box[1], natural[1]))
            relations.append(f"{var.name} on the {var.domain.name} set")
        boxes[var.name] = _intersect(var, box)
    return ProofBox(dict((d, int(dims[d])) for d in want), boxes, tuple(relations))


def _own_box(var: Variable, default: Bounds | None) -> Bounds | None:
    """The box a variable's own bounds give it in place of a default box."""
    lo = None if var.lo is None else Fraction(var.lo)
    hi = None if var.hi is None else Fraction(var.hi)
    if lo is not None and hi is not None:
        return lo, hi
    if default is None:
        return None
    width = default[1] - default[0]
    if lo is not None and lo >= default[1]:
        return lo, lo + width
    if hi is not None and hi <= default[0]:
        return hi - width, hi
    return default


def _relation_text(var: Variable) -> str:
    centre = f"{var.name} \u2212 {var.near}" if var.near else var.name
    return f"{var.name}: every value with \u2016{centre}\u2016\u221e \u2264 {var.radius}"


def _intersect(var: Variable, box: Bounds | None) -> Bounds | None:
    lo = None if var.lo is None else Fraction(var.lo)
    hi = None if var.hi is None else Fraction(var.hi)
    if box is None:
        # a half-bounded variable stays unboxed: its bound is one of the claim's hypotheses
        return (lo, hi) if lo is not None and hi is not None else None
    b_lo, b_hi = box
    lo = b_lo if lo is None else max(lo, b_lo)
    hi = b_hi if hi is None else min(hi, b_hi)
    if lo > hi:
        raise ProofBoxError(f"box of {var.name} misses its domain [{var.lo}, {var.hi}]")
    return lo, hi

