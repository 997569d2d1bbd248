"""The claim model: the public API a paper's author uses to state a lemma.

A :class:`Claim` carries the paper's label, where it is, the statement as printed, notes on
how an ambiguous statement was read, its variables with their domains, its hypotheses and
one or more :class:`Part` s.  Each part states ``lhs <relation> rhs``; its *margin* is
``>= 0`` exactly where the conclusion holds.  :class:`Reading` s are named variants of the
statement (a strict sign, another norm, another choice of minimiser).

Everything mathematical is a function ``f(ctx, v)``: ``ctx`` is a numeric context (see
:mod:`verifier.contexts`) and ``v`` gives attribute access to the variables, the reading's
``params`` and the concrete ``dims``.  The same function is run in float64 batches, at
arbitrary precision, exactly, and in ball arithmetic.
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Callable, Mapping

import numpy as np

from .errors import VerifierError
from .contexts import Bound, FloatLiteralError, as_numbers, exact_decimal
from .limits import LimitError, check_name

Fn = Callable[[Any, "Values"], Any]

RELATIONS = {
    "<=": "\u2264",
    "<": "<",
    ">=": "\u2265",
    ">": ">",
    "==": "=",
}


class ClaimDefinitionError(VerifierError, ValueError):
    """A claim was declared with an invalid argument (names the argument)."""


# ---------------------------------------------------------------------------- domains
@dataclass(frozen=True)
class Dim:
    """A dimension name with the range of sizes the search explores."""

    name: str
    lo: int = 1
    hi: int = 6

    def __post_init__(self):
        if not self.name.isidentifier():
            raise ClaimDefinitionError(f"Dim name must be an identifier, got {self.name!r}")
        if not (1 <= self.lo <= self.hi):
            raise ClaimDefinitionError(f"Dim {self.name}: need 1 <= lo <= hi, got lo={self.lo}, hi={self.hi}")


@dataclass(frozen=True)
class FixedSize:
    """The one size an int in a variable's shape allows, read like a :class:`Dim`'s range."""

    lo: int
    hi: int


@dataclass(frozen=True)
class Variable:
    """A scalar, vector or matrix variable and its domain.

    ``shape`` names the dims (``("n", "d")`` for an n x d matrix), or gives a fixed size as an
    int (``(3,)``: a vector of 3 entries, with no dimension to show in every output).  Entries lie in
    ``[lo, hi]`` (``None`` is unbounded).  ``near``/``radius`` build a relation in by
    construction: every entry satisfies ``|v - near| <= radius`` (``near=None`` is the
    zero centre), so a search never wastes samples outside it, and the relation is
    still checked exactly in every certificate.  ``lower``/``upper`` are functions
    ``f(ctx, v)`` of earlier variables bounding a scalar (for hypotheses such as
    ``theta >= balance(E)``); the search samples on and near those bounds.
    """

    name: str
    shape: tuple[str | int, ...] = ()
    #: a bound means the exact value written: ``"0.1"``, ``Fraction(1, 10)``, ``Decimal("0.1")``
    #: and the float ``0.1`` all mean 1/10 (a float by its shortest repr)
    lo: float | str | Fraction | None = None
    hi: float | str | Fraction | None = None
    near: str | None = None
    radius: str | None = None
    lower: Fn | None = None
    upper: Fn | None = None
    lower_text: str = ""
    upper_text: str = ""
    description: str = ""
    #: the set the variable lies on when it is not a box (a simplex, a sphere, ...): a
    #: :class:`verifier.kinds.Kind`, whose membership joins the check's hypotheses
    domain: Any = None
    #: the ends of [lo, hi] that are a search box rather than the statement's ("lo", "hi"): the
    #: statement leaves them unbounded, so a proof on that box is narrower than the statement
    cut: tuple[str, ...] = ()

    def __post_init__(self):
        if not self.name.isidentifier():
            raise ClaimDefinitionError(f"variable name must be an identifier, got {self.name!r}")
        object.__setattr__(self, "shape", tuple(self.shape))
        for size in self.shape:
            fixed = isinstance(size, int) and not isinstance(size, bool)
            if not (fixed and size >= 1) and not (isinstance(size, str) and size.isidentifier()):
                raise ClaimDefinitionError(f"variable {self.name}: a size is a Dim's name or a positive int, got {size!r}")
        for end, side in (("lo", -1), ("hi", 1)):
            value = getattr(self, end)
            if value is not None:
                try:
                    object.__setattr__(self, end, Bound(value, side))
                except (TypeError, ValueError) as exc:
                    raise ClaimDefinitionError(f"variable {self.name}: {end}={value!r}: {exc}") from None
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise ClaimDefinitionError(f"variable {self.name}: lo={self.lo} > hi={self.hi}")
        if self.near is not None and self.radius is None:
            raise ClaimDefinitionError(f"variable {self.name}: near={self.near!r} needs a radius")
        if (self.lower or self.upper) and self.shape:
            raise ClaimDefinitionError(f"variable {self.name}: lower/upper bound functions need a scalar")
        object.__setattr__(self, "cut", tuple(self.cut))
        for end in self.cut:
            if end not in ("lo", "hi") or getattr(self, end) is None:
                raise ClaimDefinitionError(f"variable {self.name}: cut={self.cut!r} names an end that is not set (use 'lo' or 'hi')")

    @property
    def depends_on(self) -> tuple[str, ...]:
        """The variables this one is stated through (a relation's centre and radius, a ball's)."""
        own = tuple(x for x in (self.near, self.radius) if x)
        return own + (self.domain.depends_on() if self.domain is not None else ())

    def concrete_shape(self, dims: Mapping[str, int]) -> tuple[int, ...]:
        return tuple(s if isinstance(s, int) else dims[s] for s in self.shape)

    @property
    def shape_text(self) -> str:
        """``n x d``, ``3``, ``n x 2``: the shape as outputs print it."""
        return " x ".join(str(s) for s in self.shape)


def Scalar(name: str, **kw) -> Variable:
    return Variable(name, (), **kw)


def Vector(name: str, size: str | int, **kw) -> Variable:
    """A vector of dimension ``size``: a Dim's name, or an int for a fixed size (``Vector("x", 2)``)."""
    return Variable(name, (size,), **kw)


def Matrix(name: str, rows: str | int, cols: str | int, **kw) -> Variable:
    return Variable(name, (rows, cols), **kw)


@dataclass(frozen=True)
class Hypothesis:
    """``margin(ctx, v) >= 0`` (``> 0`` when strict) exactly where the hypothesis holds."""

    text: str
    margin: Fn
    strict: bool = False


Interval = tuple[Fraction, Fraction]

class _DefaultBox(tuple):
    """The default box of a proof domain: a variable's own bounds, where it states both, replace it."""


#: the box of every free variable when a proof domain names none: small enough for a branch
#: and bound to decide in seconds, wide enough to hold the integer counterexamples of the pack
DEFAULT_PROOF_BOX = _DefaultBox(("-2", "2"))

#: the size a proof gives a dimension its domain does not fix: at size 1 a sum has one term
#: and a claim like sum_i exp(x_i) >= n exp(mean x) compares a function with itself
NON_DEGENERATE_SIZE = 2


def non_degenerate_size(dim: "Dim") -> int:
    """The smallest size of ``dim`` at which the claim is not degenerate: 2 where its range allows."""
    return min(max(dim.lo, NON_DEGENERATE_SIZE), dim.hi)


@dataclass(frozen=True)
class ProofDomain:
    """Where ``verify all`` and ``verify lemma`` try to prove a check that survived the search.

    A proof holds on a bounded domain at fixed dimensions only, so the claim states it:
    ``dims`` fixes sizes by name (a dimension not named takes the smallest size at which the
    claim is not degenerate: 2 where its range allows, since at size 1 a sum or a max has one
    term), ``box`` is ``(lo, hi)`` for every entry of every free variable (``None``: every
    real value, which only the SMT method can decide), and ``boxes`` gives one variable its
    own interval.  A variable's own bounds still apply (``eps >= 0`` with box ``(-2, 2)`` is
    proved on ``[0, 2]``); without a ``box``, a variable that states both bounds is proved on
    them (``x`` in ``[0, 4]`` on ``[0, 4]``, not on the default box cut to ``[0, 2]``);
    variables built by a relation
    (``||B - A|| <= eps``) range over everything it allows.  Bounds are exact: ``"0.01"``,
    ``"1/3"``, ints, or a float by its shortest repr.  ``max_boxes`` is the branch-and-bound
    work this check's proof gets (default: ``--prove-boxes``): boxes cost very different
    times from one claim to another, and a budget of work, unlike one of time, decides the
    same volume on every machine.
    """

    dims: Mapping[str, int] = field(default_factory=dict)
    box: tuple[Any, Any] | None = DEFAULT_PROOF_BOX
    boxes: Mapping[str, tuple[Any, Any]] = field(default_factory=dict)
    max_boxes: int | None = None

    def __post_init__(self):
        dims = dict(self.dims)
        for name, size in dims.items():
            if not isinstance(size, int) or isinstance(size, bool) or size < 1:
                raise ClaimDefinitionError(f"ProofDomain: dimension {name} = {size!r} must be a positive int")
        object.__setattr__(self, "dims", dims)
        if self.box is not None:
            box = _interval("box", self.box)
            object.__setattr__(self, "box", _DefaultBox(box) if isinstance(self.box, _DefaultBox) else box)
        boxes = {name: _interval(f"boxes[{name!r}]", b) for name, b in dict(self.boxes).items()}
        object.__setattr__(self, "boxes", boxes)
        if self.max_boxes is not None and (isinstance(self.max_boxes, bool) or not isinstance(self.max_boxes, int) or self.max_boxes < 1):
            raise ClaimDefinitionError(f"ProofDomain: max_boxes = {self.max_boxes!r} must be a positive int (or None: --prove-boxes)")

    def sizes(self, dims: tuple["Dim", ...]) -> dict[str, int]:
        """Every dimension of a check: the stated size, else the smallest non-degenerate one."""
        return {d.name: self.dims.get(d.name, non_degenerate_size(d)) for d in dims}

    @property
    def box_stated(self) -> bool:
        """False for the default box, which a variable's own two bounds replace."""
        return not isinstance(self.box, _DefaultBox)


def _interval(what: str, bounds) -> Interval:
    try:
        lo, hi = bounds
        lo, hi = exact_decimal(lo), exact_decimal(hi)
    except (TypeError, ValueError) as exc:
        raise ClaimDefinitionError(f"ProofDomain: {what} must be (lo, hi) with exact numbers, got {bounds!r} ({exc})") from None
    if lo > hi:
        raise ClaimDefinitionError(f"ProofDomain: {what} = ({lo}, {hi}) is empty (lo > hi)")
    return lo, hi


# ----------------------------------------------------------------------------- values
class Values:
    """Attribute access to a candidate's variables, plus ``params`` and ``dims``."""

    __slots__ = ("_data", "params", "dims")

    def __init__(self, data: Mapping[str, Any], params: Mapping[str, Any], dims: Mapping[str, int]):
        object.__setattr__(self, "_data", {k: as_numbers(x) for k, x in data.items()})
        object.__setattr__(self, "params", params)
        object.__setattr__(self, "dims", dims)

    def __getattr__(self, name):
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(f"no variable named {name!r}") from None

    def __getitem__(self, name):
        return self._data[name]

    def mapped(self, convert) -> "Values":
        """The same candidate with every variable's array converted (into another context's numbers, say)."""
        return Values({k: convert(x) for k, x in self._data.items()}, self.params, self.dims)

    def __setattr__(self, name, value):
        raise AttributeError("Values are read-only")


# ------------------------------------------------------------------------ parts, readings
@dataclass(frozen=True)
class Part:
    """One conclusion ``lhs <relation> rhs`` of a claim.

    ``elementwise=True`` means lhs and rhs are arrays and the relation must hold for
    every entry ("for each i").  ``relation="=="`` compares arrays entrywise too.
    ``show`` names derived quantities to display with a counterexample.
    """

    name: str
    lhs: Fn
    rhs: Fn
    relation: str = "<="
    statement: str = ""
    latex: str = ""
    elementwise: bool = False
    #: hypotheses of this part only, besides the claim's: two regimes of one statement
    #: (``x <= 1`` and ``x >= 1``) are two parts of one claim, each searched, certified,
    #: shrunk, proved and locked under its own
    hypotheses: tuple[Hypothesis, ...] = ()
    lhs_text: str = "lhs"
    rhs_text: str = "rhs"
    #: derived quantities ``(name, f(ctx, v))`` shown and stored with a counterexample, so
    #: a reader sees the witness (the two minimisers of an ill-posed argmin, say)
    show: tuple[tuple[str, Fn], ...] = ()
    #: where to prove this part when it survives (overrides the claim's ``prove_on``)
    prove_on: ProofDomain | None = None
    #: the part as a reader of its text read it, in Python syntax (``2*x*y**2 <= x**2 + y**4``):
    #: ``verify expr`` fills it in, and reports show it beside the text, so a misreading is seen
    read_as: str = ""

    def __post_init__(self):
        if self.relation not in RELATIONS:
            raise ClaimDefinitionError(f"part {self.name}: relation must be one of {sorted(RELATIONS)}, got {self.relation!r}")
        object.__setattr__(self, "hypotheses", _hypotheses(f"part {self.name}", self.hypotheses))


def _hypotheses(owner: str, hypotheses) -> tuple[Hypothesis, ...]:
    """A list or tuple of :class:`Hypothesis` objects as a tuple, or a one-line error naming ``owner``."""
    if isinstance(hypotheses, (Hypothesis, str)) or not hasattr(hypotheses, "__iter__"):
        raise ClaimDefinitionError(f"{owner}: hypotheses must be a list or tuple of Hypothesis objects, got {hypotheses!r}")
    out = tuple(hypotheses)
    for h in out:
        if not isinstance(h, Hypothesis):
            raise ClaimDefinitionError(f"{owner}: hypotheses must hold Hypothesis objects, got {h!r}")
    return out


@dataclass(frozen=True)
class Reading:
    """A named way to read an ambiguous statement.

    ``params`` reach the claim's functions as ``v.params``; ``overrides`` replace fields
    of named parts (``{"3": {"relation": "<"}}``); ``parts`` restricts the reading to
    some parts; ``extra_variables`` add variables (an adversarial choice, say); ``dims``
    narrow the claim's dimension ranges by name (``(Dim("d", 1, 1),)``: one column only).
    """

    name: str
    summary: str
    params: Mapping[str, Any] = field(default_factory=dict)
    overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    parts: tuple[str, ...] | None = None
    extra_variables: tuple[Variable, ...] = ()
    extra_hypotheses: tuple[Hypothesis, ...] = ()
    dims: tuple[Dim, ...] = ()
    #: where to prove this reading's checks when they survive (overrides part and claim)
    prove_on: ProofDomain | None = None


DEFAULT_READING = Reading("as-printed", "The statement exactly as printed.")


@dataclass(frozen=True)
class Claim:
    """A checkable statement from a paper."""

    id: str
    title: str
    statement: str
    variables: tuple[Variable, ...]
    dims: tuple[Dim, ...]
    parts: tuple[Part, ...]
    kind: str = "lemma"
    paper: str = ""
    location: str = ""
    latex: str = ""
    notes: str = ""
    hypotheses: tuple[Hypothesis, ...] = ()
    readings: tuple[Reading, ...] = (DEFAULT_READING,)
    derivation: str = ""
    #: the verdict a certified violation earns: "refuted" for a claim, "ill-posed" for a
    #: definition whose object is not unique, "surrogate-fails" for a named witness of an
    #: existential theorem (a failing witness does not refute the theorem).
    refuted_verdict: str = "refuted"
    #: where a surviving check is proved (:class:`ProofDomain`); None: the smallest dims at which
    #: the check is not degenerate, each variable's own bounds, else :data:`DEFAULT_PROOF_BOX`.
    #: A part or reading may state its own.
    prove_on: ProofDomain | None = None

    def __post_init__(self):
        for field, kind in (("variables", Variable), ("dims", Dim), ("parts", Part), ("hypotheses", Hypothesis), ("readings", Reading)):
            value = getattr(self, field)
            if isinstance(value, (kind, str)) or not hasattr(value, "__iter__"):
                raise ClaimDefinitionError(f"claim {self.id}: {field} must be a list or tuple of {kind.__name__} objects, got {value!r}")
            object.__setattr__(self, field, tuple(value))
            for item in getattr(self, field):
                if not isinstance(item, kind):
                    raise ClaimDefinitionError(f"claim {self.id}: {field} must hold {kind.__name__} objects, got {item!r} "
                                               f"(Claim's arguments in order: id, title, statement, variables, dims, parts)")
        _check_names(self)
        if not self.parts:
            raise ClaimDefinitionError(f"claim {self.id}: needs at least one part")
        if not self.readings:
            raise ClaimDefinitionError(f"claim {self.id}: needs at least one reading")
        _unique(f"claim {self.id}: part", [p.name for p in self.parts])
        _unique(f"claim {self.id}: reading", [r.name for r in self.readings])
        dim_names = {d.name for d in self.dims}
        for r in self.readings:
            for pname in r.overrides:
                if pname not in {p.name for p in self.parts}:
                    raise ClaimDefinitionError(f"claim {self.id}: reading {r.name} overrides unknown part {pname!r}")
            for dim in r.dims:
                if dim.name not in dim_names:
                    raise ClaimDefinitionError(f"claim {self.id}: reading {r.name} narrows unknown dim {dim.name!r}")
            for var in self.variables + r.extra_variables:
                for s in var.shape:
                    if isinstance(s, str) and s not in dim_names:
                        raise ClaimDefinitionError(f"claim {self.id}: variable {var.name} uses unknown dim {s!r}")
        _order_variables(self.id, self.variables)
        for check in self.checks():
            _check_proof_domain(check)
            dims = {d.name: d for d in check.dims}
            for var in check.variables:
                dims.update({s: FixedSize(s, s) for s in var.shape if isinstance(s, int)})  # its own range
            for var in check.variables:
                if var.domain is not None:  # a set with no exact point at some size (3 on the circle)
                    var.domain.validate(var, dims)

    def checks(self, reading: str | None = None, part: str | None = None) -> list["Check"]:
        """Every (part, reading) pair this claim asks to check."""
        out = []
        for r in self.readings:
            if reading is not None and r.name != reading:
                continue
            for p in self.parts:
                if part is not None and p.name != part:
                    continue
                if r.parts is not None and p.name not in r.parts:
                    continue
                p2 = dataclasses.replace(p, **dict(r.overrides.get(p.name, {})))
                out.append(Check(self, p2, r))
        return out

    def reading(self, name: str) -> Reading:
        for r in self.readings:
            if r.name == name:
                return r
        raise KeyError(name)


def _check_proof_domain(check: "Check") -> None:
    """A proof domain that names an unknown dimension or variable, or a size the check's
    range excludes, is refused when the claim is declared, not when a proof is attempted."""
    spec, where = check.proof_domain, f"claim {check.claim.id} part {check.part.name} [{check.reading.name}]: prove_on"
    ranges = {d.name: d for d in check.dims}
    for name, size in spec.dims.items():
        if name not in ranges:
            raise ClaimDefinitionError(f"{where} names unknown dimension {name!r}; dimensions: {', '.join(ranges) or 'none'}")
        if not ranges[name].lo <= size <= ranges[name].hi:
            raise ClaimDefinitionError(f"{where} sets {name} = {size}, outside the check's range {ranges[name].lo}..{ranges[name].hi}")
    variables = {v.name: v for v in check.variables}
    for name in spec.boxes:
        if name not in variables:
            raise ClaimDefinitionError(f"{where} boxes unknown variable {name!r}; variables: {', '.join(variables)}")
        if variables[name].radius is not None:
            raise ClaimDefinitionError(f"{where} boxes {name}, which its relation to {variables[name].radius} bounds; box what it depends on")


def _check_names(claim: "Claim") -> None:
    """The id, paper, part and reading names make a stored counterexample's path: a name that
    could leave the store's folder (``../x``), or that no file system can hold, is refused here."""
    try:
        check_name(claim.id, path_component=True)
    except LimitError as exc:
        raise ClaimDefinitionError(f"claim id {claim.id!r} cannot name a folder of the counterexample store: {exc}") from None
    if claim.paper:
        try:
            check_name(claim.paper, path_component=True)
        except LimitError as exc:
            raise ClaimDefinitionError(f"claim {claim.id}: paper {claim.paper!r} cannot name a folder of the counterexample store: {exc}") from None
    for what, names in (("part", [p.name for p in claim.parts]), ("reading", [r.name for r in claim.readings])):
        for name in names:
            try:
                check_name(name, path_component=False)
            except LimitError as exc:
                raise ClaimDefinitionError(f"claim {claim.id}: {what} name {name!r}: {exc}") from None


def _unique(what, names):
    seen = set()
    for n in names:
        if n in seen:
            raise ClaimDefinitionError(f"{what} name {n!r} is used twice")
        seen.add(n)


def _order_variables(claim_id, variables):
    names = [v.name for v in variables]
    _unique(f"claim {claim_id}: variable", names)
    seen: set[str] = set()
    for v in variables:
        for dep in v.depends_on:
            if dep not in seen:
                raise ClaimDefinitionError(
                    f"claim {claim_id}: variable {v.name} depends on {dep!r}, which must be declared before it"
                )
        seen.add(v.name)


# ------------------------------------------------------------------------------ checks
@dataclass(frozen=True)
class Evaluation:
    """A part evaluated on a batch: arrays of shape (batch,)."""

    lhs: Any
    rhs: Any
    margin: Any
    scale: Any
    hypotheses: tuple[Any, ...]


@dataclass(frozen=True)
class Check:
    """One part of one claim under one reading: the unit the engine searches."""

    claim: Claim
    part: Part
    reading: Reading

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.claim.id, self.part.name, self.reading.name)

    @property
    def label(self) -> str:
        bits = [self.claim.id]
        if len(self.claim.parts) > 1:
            bits.append(f"part {self.part.name}")
        if len(self.claim.readings) > 1:
            bits.append(f"[{self.reading.name}]")
        return " ".join(bits)

    @functools.cached_property  # a check never changes; every evaluation reads these
    def variables(self) -> tuple[Variable, ...]:
        """Declaration order: a reading's free extra variables (an adversarial choice, say)
        come first, so that bound functions of the claim's variables may use them."""
        extra = self.reading.extra_variables
        free = tuple(x for x in extra if not (x.depends_on or x.lower or x.upper))
        return free + self.claim.variables + tuple(x for x in extra if x not in free)

    @property
    def dims(self) -> tuple[Dim, ...]:
        """The claim's dimension ranges, narrowed by the reading."""
        narrowed = {d.name: d for d in self.reading.dims}
        return tuple(narrowed.get(d.name, d) for d in self.claim.dims)

    @property
    def strict(self) -> bool:
        return self.part.relation in ("<", ">")

    @property
    def proof_domain(self) -> ProofDomain:
        """Where to prove this check: the reading's domain, else the part's, else the claim's, else the default."""
        for spec in (self.reading.prove_on, self.part.prove_on, self.claim.prove_on):
            if spec is not None:
                return spec
        return ProofDomain()

    @functools.cached_property
    def hypotheses(self) -> tuple[Hypothesis, ...]:
        """Stated hypotheses plus the relations built into the variables' domains."""
        out = list(self.claim.hypotheses) + list(self.reading.extra_hypotheses) + list(self.part.hypotheses)
        for var in self.variables:
            out.extend(domain_hypotheses(var))
        return tuple(out)

    def values(self, data: Mapping[str, Any], dims: Mapping[str, int]) -> Values:
        return Values(data, MappingProxyType(dict(self.reading.params)), MappingProxyType(dict(dims)))

    def evaluate(self, ctx, data: Mapping[str, Any], dims: Mapping[str, int], with_hypotheses=True) -> Evaluation:
        """Evaluate lhs, rhs, margin and hypothesis margins in ``ctx``."""
        v = self.values(data, dims)
        with ctx.precision():
            hyps = tuple(self._run(h.margin, ctx, v, data, f"hypothesis {h.text!r}") for h in self.hypotheses) if with_hypotheses else ()
            lhs = self._run(self.part.lhs, ctx, v, data, "lhs")
            rhs = self._run(self.part.rhs, ctx, v, data, "rhs")
            lhs, rhs = _broadcast_sides(lhs, rhs)
            lhs, rhs, margin, scale = _compare(ctx, self.part, lhs, rhs)
        return Evaluation(lhs, rhs, margin, scale, hyps)

    def _run(self, fn, ctx, v, data, where):
        try:
            return _as_batch(ctx, fn(ctx, v), data)
        except FloatLiteralError as exc:
            raise FloatLiteralError(f"claim {self.claim.id} part {self.part.name} ({where}): {exc}") from None


def domain_hypotheses(var: Variable) -> list[Hypothesis]:
    out = []
    if var.lo is not None:
        out.append(Hypothesis(f"{var.name} \u2265 {var.lo:g}", lambda ctx, v, n=var.name, lo=var.lo: ctx.min_all(v[n]) - ctx.const(lo.exact)))
    if var.hi is not None:
        out.append(Hypothesis(f"{var.name} \u2264 {var.hi:g}", lambda ctx, v, n=var.name, hi=var.hi: ctx.const(hi.exact) - ctx.max_all(v[n])))
    if var.radius is not None:
        centre = var.near
        text = f"\u2016{var.name} \u2212 {centre}\u2016\u221e \u2264 {var.radius}" if centre else f"\u2016{var.name}\u2016\u221e \u2264 {var.radius}"

        def rel(ctx, v, n=var.name, c=centre, r=var.radius):
            diff = v[n] - v[c] if c else v[n]
            return v[r] - ctx.norm_inf(diff)

        out.append(Hypothesis(text, rel))
    if var.lower is not None:
        out.append(Hypothesis(f"{var.name} \u2265 {var.lower_text or 'its lower bound'}", lambda ctx, v, n=var.name, f=var.lower: v[n] - f(ctx, v)))
    if var.upper is not None:
        out.append(Hypothesis(f"{var.name} \u2264 {var.upper_text or 'its upper bound'}", lambda ctx, v, n=var.name, f=var.upper: f(ctx, v) - v[n]))
    if var.domain is not None:
        out.extend(var.domain.hypotheses(var))
    return out


def _as_batch(ctx, value, data):
    """Broadcast a claim function's result to an array with a batch axis."""
    if ctx.name == "float64":
        arr = np.asarray(value, dtype=np.float64)
    else:  # a side written as a plain constant (``rhs = Fraction(9, 10)``) becomes the context's number
        arr = np.asarray(ctx.lift(value), dtype=object)
    batch = _batch_size(data)
    if arr.ndim == 0:
        out = np.empty((batch,), dtype=arr.dtype)
        out[...] = arr[()]
        arr = out
    return arr if ctx.name == "float64" else ctx.wrap(arr)


def _broadcast_sides(lhs, rhs):
    """Both sides to one shape, aligned on the batch axis (``x_i <= 9/10`` for a vector x)."""
    if np.shape(lhs) == np.shape(rhs):
        return lhs, rhs
    k = max(np.ndim(lhs), np.ndim(rhs))
    lhs = np.reshape(lhs, np.shape(lhs) + (1,) * (k - np.ndim(lhs)))
    rhs = np.reshape(rhs, np.shape(rhs) + (1,) * (k - np.ndim(rhs)))
    lhs, rhs = np.broadcast_arrays(lhs, rhs, subok=True)
    return lhs, rhs


def _batch_size(data):
    for v in data.values():
        return np.shape(v)[0]
    return 1


def _compare(ctx, part: Part, lhs, rhs):
    """Margin (>= 0 where the part holds) and a scale to make it relative.

    The sides keep the claim's own orientation (readers copy them under the labels
    "lhs" and "rhs"); only the margin's sign convention depends on the relation.
    """
    rel = part.relation
    if rel == "==":
        diff = ctx.abs(lhs - rhs)
        if np.ndim(diff) > 1:
            # arrays: the margin is the largest entrywise difference; lhs and rhs are
            # reported at that entry, so every reporter sees scalars
            scale = ctx.maximum(ctx.max_all(ctx.abs(lhs)), ctx.max_all(ctx.abs(rhs)))
            flat = diff.reshape(diff.shape[0], -1)
            idx = _argmin_hint(ctx, -flat)
            lhs = np.take_along_axis(lhs.reshape(flat.shape), idx[:, None], axis=1)[:, 0]
            rhs = np.take_along_axis(rhs.reshape(flat.shape), idx[:, None], axis=1)[:, 0]
            margin = -ctx.max(flat, 1)
        else:
            margin = -diff
            scale = ctx.maximum(ctx.abs(lhs), ctx.abs(rhs))
        return lhs, rhs, margin, scale
    per = rhs - lhs if rel in ("<=", "<") else lhs - rhs
    if np.ndim(per) > 1:
        if not part.elementwise:
            raise ClaimDefinitionError(f"part {part.name}: lhs/rhs are arrays; declare elementwise=True or reduce them")
        flat = per.reshape(per.shape[0], -1)
        idx = _argmin_hint(ctx, flat)
        lhs = np.take_along_axis(lhs.reshape(flat.shape), idx[:, None], axis=1)[:, 0]
        rhs = np.take_along_axis(rhs.reshape(flat.shape), idx[:, None], axis=1)[:, 0]
        margin = ctx.min(flat, 1)
    else:
        margin = per
    scale = ctx.abs(lhs) + ctx.abs(rhs)
    return lhs, rhs, margin, scale


def _argmin_hint(ctx, flat):
    """Index of the (approximately) smallest entry per batch row, for display only."""
    if flat.dtype != object:
        return np.argmin(np.where(np.isnan(flat), np.inf, flat), axis=1)
    with np.errstate(all="ignore"):
        approx = np.frompyfunc(_approx_float, 1, 1)(flat).astype(np.float64)
    return np.argmin(np.where(np.isnan(approx), np.inf, approx), axis=1)


def _approx_float(x):
    try:
        if hasattr(x, "mid"):
            return float(x.mid())
        return float(x)
    except Exception:
        return np.nan
