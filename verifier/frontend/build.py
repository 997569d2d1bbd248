"""A statement, its variables and constraints to a :class:`~verifier.claims.Claim`, through a pack module.

The front end writes the claim as the source of a pack module (what ``--save-claim`` keeps)
and loads the claim from that source, so what ``verify expr`` checks and what a user locks
are the same code.  Nothing below this package learns that the claim came from text.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from fractions import Fraction

import sympy

from ..claims import Claim, ClaimDefinitionError
from ..reporters.reading import reading_text
from .consistency import check_satisfiable
from .constraints import BoxSolution, DerivedSolution, SetSolution, solve_equalities
from .ctxcode import CtxPrinter, NotExpressible, variable_access
from .declarations import parse_declarations
from .errors import ExpressionError, shorten
from .names import UNBOUNDED_BOX, Declarations, Declared
from .sizes import MAX_EXPANSION_TERMS, expansion_terms, largest_expansion
from .translate import Relation, Scope, read

RELATION_TEXT = {"<=": "\u2264", "<": "<", ">=": "\u2265", ">": ">", "==": "=", "!=": "\u2260"}
LATEX_RELATION = {"<=": r"\le", "<": "<", ">=": r"\ge", ">": ">", "==": "=", "!=": r"\ne"}


@dataclass(frozen=True)
class ExprRequest:
    """What ``verify expr`` was given."""

    statement: str
    variables: tuple[str, ...] = ()
    dims: tuple[str, ...] = ()
    where: tuple[str, ...] = ()
    tighten: str | None = None  # the free constant of ``--tighten C``
    claim_id: str | None = None
    paper: str = "expr"

    def command(self) -> str:
        """The command line that states this claim (quoted for a POSIX shell)."""
        bits = ["verify expr", _quote(self.statement)]
        bits += [f"--var {_quote(v)}" for v in self.variables]
        bits += [f"--dim {_quote(d)}" for d in self.dims]
        bits += [f"--where {_quote(w)}" for w in self.where]
        if self.tighten:
            bits.append(f"--tighten {self.tighten}")
        return " ".join(bits)

    def default_id(self) -> str:
        return "expr-" + hashlib.sha256(self.command().encode()).hexdigest()[:8]


@dataclass(frozen=True)
class ExprClaim:
    claim: Claim
    source: str  # the pack module that states it
    notes: tuple[str, ...] = ()
    homogeneous: int | None = None  # the degree, when the statement is homogeneous on a cone
    tighten: str | None = None


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def build(request: ExprRequest) -> ExprClaim:
    """The claim of a request, or an :class:`ExpressionError` naming the input at fault."""
    decl = parse_declarations(request.variables, request.dims)
    if not decl.variables:
        raise ExpressionError("no variable is declared: nothing varies, so there is nothing to search (--var 'x in [0, 1]')",
                              request.statement, None)
    free = (request.tighten,) if request.tighten else ()
    scope = Scope(decl, free)
    statement = read(request.statement, scope)
    if not statement.relations:
        raise ExpressionError("a relation is missing (<=, >=, <, >, = or \\le, \\ge, ...): nothing to check", request.statement, None)
    for rel in statement.relations:
        if rel.relation == "!=":
            raise ExpressionError("\u2260 cannot be a conclusion to check; state it as <, > or =", request.statement, None)
    used = set(statement.used)
    inequalities: list[tuple[Relation, str]] = []
    equalities: list[tuple[Relation, str]] = []
    for spec in request.where:
        where = read(spec, scope, source=f"--where {spec!r}")
        if not where.relations:
            raise ExpressionError("a relation is missing (a constraint is lhs = rhs, lhs <= rhs, ...)", spec, None, f"--where {spec!r}")
        used |= where.used
        for rel in where.relations:
            (equalities if rel.relation == "==" else inequalities).append((rel, spec))
    _check_used(decl, used, request)
    for rel, spec in equalities:
        _check_expansion(rel, spec)
    solutions = solve_equalities(equalities, decl, scope)
    writer = _ModuleWriter(request, decl, solutions, statement.relations, inequalities)
    source = writer.module()
    try:
        claim = load_claim(source)
    except ExpressionError as exc:  # a kind refused its arguments (a sphere with no rational point, say)
        for sol in solutions:
            if isinstance(sol, SetSolution) and sol.name in exc.message:
                raise ExpressionError(exc.message, sol.constraint, None, f"--where {sol.constraint!r}") from None
        raise
    check_satisfiable(claim, request)
    return ExprClaim(claim, source, tuple(writer.notes), writer.homogeneous, request.tighten)


def reading(rel: Relation) -> str:
    """A relation as it was read, in Python syntax (sympy's): what the claim's sides compute."""
    return f"{sympy.sstr(rel.lhs)} {rel.relation} {sympy.sstr(rel.rhs)}"


def _check_expansion(rel: Relation, spec: str) -> None:
    """An equality is solved by expanding it: refused first when the expansion is out of all proportion."""
    terms, worst = largest_expansion(rel.lhs - rel.rhs)
    if terms > MAX_EXPANSION_TERMS:
        raise ExpressionError(f"{shorten(sympy.sstr(worst), 60)} expands to {_count(expansion_terms(worst))} terms, more than "
                              f"{MAX_EXPANSION_TERMS:,}: an equality is solved by expanding it", spec, None, f"--where {spec!r}")


def _count(terms: int) -> str:
    return f"{terms:,}" if terms < 10**15 else f"about 10^{len(str(terms)) - 1}"


def load_claim(source: str) -> Claim:
    """The claim a module's source states (the module ``verify expr`` wrote)."""
    namespace: dict = {"__name__": "verify_expr_claim"}
    try:
        exec(compile(source, "<verify expr>", "exec"), namespace)  # noqa: S102 - source printed by the front end
    except ClaimDefinitionError as exc:
        raise ExpressionError(str(exc)) from None
    return namespace["claim"]


def _check_used(decl: Declarations, used: set[str], request: ExprRequest) -> None:
    for var in decl.variables:
        if var.py not in used:
            raise ExpressionError(f"{var.name} is declared but not used in the statement or a constraint", var.spec, None, f"--var {var.spec!r}")
    sizes = {v.size for v in decl.variables if isinstance(v.size, str)}
    for d in decl.dims:
        if d.name not in sizes and d.name not in used and d.spec:
            raise ExpressionError(f"dimension {d.name} is declared but no vector has it", d.spec, None, f"--dim {d.spec!r}")
    if request.tighten and request.tighten not in used:
        raise ExpressionError(f"--tighten {request.tighten}: the statement has no {request.tighten}", request.statement, None)


# ------------------------------------------------------------------------------ module
def _bound(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f'"{q.numerator}/{q.denominator}"'


def _py_string(text: str) -> str:
    """A Python literal of ``text``; raw when that keeps LaTeX readable (``r'\\frac{a}{b}'``)."""
    plain = repr(text)
    if "\\" in text and "'" not in text and not text.endswith("\\") and "\n" not in text and text.isprintable():
        return "r'" + text + "'"
    return plain


class _ModuleWriter:
    """The pack module's source: imports, one ``claim = Claim(...)``, every function printed against ctx."""

    def __init__(self, request, decl: Declarations, solutions, relations, inequalities):
        self.request, self.decl, self.solutions = request, decl, solutions
        self.relations, self.inequalities = relations, inequalities
        self.helpers: set[str] = set()
        self.imports = {"Claim", "Part"}
        self.domain_imports: set[str] = set()
        self.notes: list[str] = list(decl.notes)
        self.members = {var.py: sol for sol in solutions if isinstance(sol, SetSolution) for var, _ in sol.members}
        self.derived = {sol.variable.py: sol for sol in solutions if isinstance(sol, DerivedSolution)}
        self.narrowed = {var.py: var for sol in solutions if isinstance(sol, BoxSolution) for var in sol.variables}
        sets = [sol.name for sol in solutions if isinstance(sol, SetSolution)]
        self.printer = CtxPrinter([v.py for v in decl.variables if not v.is_vector],
                                  [v.py for v in decl.variables if v.is_vector] + sets,
                                  [d.name for d in decl.dims], self.helpers)
        self.homogeneous: int | None = None

    def code(self, expr, what: str) -> str:
        try:
            return self.printer.source(expr)
        except NotExpressible as exc:
            raise ExpressionError(f"{what}: {exc} has no ctx form (docs/ctx.md lists the functions)", self.request.statement, None) from None

    # -- pieces ------------------------------------------------------------------------
    def variables(self) -> tuple[list[str], list[str]]:
        """(variable lines, hypothesis lines) in an order where every Derived follows what it reads."""
        lines, hyps = [], []
        free = [self.narrowed.get(v.py, v) for v in self.decl.variables if v.py not in self.members and v.py not in self.derived]
        boxed = []
        for var in free:
            lines.append(self._free(var))
            hyps += self._strict(var)
            if var.boxed:
                boxed.append(var)
        for sol in self.solutions:
            if isinstance(sol, SetSolution):
                lines.append(self._set(sol))
                for var, expr in sol.members:
                    lines.append(self._derived(var, expr, _plain(expr)))
                    hyps += self._strict(var)
                names = ", ".join(v.name for v, _ in sol.members)
                self.notes.append(f"{sol.constraint} is solved as ({names}) on {sol.describe()} ({sol.name}).")
            elif isinstance(sol, BoxSolution):
                self.notes.append(f"{sol.constraint} is solved as {sol.describe()}.")
            else:
                var = sol.variable
                text = f"{_plain(sol.expr)}"
                lines.append(self._derived(var, sol.expr, text))
                hyps += self._strict(var)
                self.notes.append(f"{sol.constraint} is solved as {var.name} = {text}.")
        self._box_note(boxed)
        return lines, hyps

    def _free(self, var: Declared) -> str:
        if var.kind == "simplex":
            self.domain_imports.add("Simplex")
            return f"Simplex({var.py!r}, {var.size!r})"
        if var.kind == "unit-vector":
            self.domain_imports.add("UnitVector")
            return f"UnitVector({var.py!r}, {var.size!r})"
        factory = "Vector" if var.kind == "vector" else "Scalar"
        self.imports.add(factory)
        args = [repr(var.py)] + ([repr(var.size)] if var.kind == "vector" else [])
        args += [f"lo={_bound(var.lo)}", f"hi={_bound(var.hi)}"]
        if var.boxed:  # the ends the statement leaves open: a proof on this box is narrower than it
            args.append(f"cut={tuple(var.boxed)!r}")
        return f"{factory}({', '.join(args)})"

    def _set(self, sol: SetSolution) -> str:
        factory, call = sol.factory()
        self.domain_imports.add(factory)
        return call

    def _derived(self, var: Declared, expr, text: str) -> str:
        self.domain_imports.add("Derived")
        args = [repr(var.py), f"lambda ctx, v: {self.code(expr, f'the solution for {var.name}')}"]
        if var.lo is not None and "lo" not in var.boxed:
            args.append(f"lo={_bound(var.lo)}")
        if var.hi is not None and "hi" not in var.boxed:
            args.append(f"hi={_bound(var.hi)}")
        args.append(f"text={_py_string(text)}")
        return f"Derived({', '.join(args)})"

    def _strict(self, var: Declared) -> list[str]:
        """A bound the box cannot state exactly, as a hypothesis checked in every certificate: a strict
        one (``a > 0``: the box's ``lo`` is 0) and an irrational one (``x < \\pi``: the box is cut at a
        rational just outside it)."""
        out = []
        value = variable_access(var.py) if not var.is_vector else None
        for end, rel in (("lo", ">"), ("hi", "<")):
            strict = getattr(var, f"{end}_strict")
            exact = getattr(var, f"{end}_exact")
            if not strict and exact is None:
                continue
            bound = getattr(var, end)
            reduce = "ctx.min_all" if end == "lo" else "ctx.max_all"
            x = value if value else f"{reduce}({variable_access(var.py)})"
            if exact is not None:
                edge, shown = self.code(exact, f"the bound of {var.name}"), sympy.sstr(exact)
                self.notes.append(f"{var.name} {rel if strict else rel + '='} {shown} is a hypothesis, decided exactly in every "
                                  f"certificate; the search box is cut at {_frac(bound)}, a rational just outside it.")
            else:
                edge, shown = _const(bound), _frac(bound)
            edge = f"({edge})" if " " in edge else edge
            margin = f"{x} - {edge}" if end == "lo" else f"{edge} - {x}"
            if exact is None and bound == 0:
                margin = x if end == "lo" else f"-{x}"
            sign = rel if strict else {">": "\u2265", "<": "\u2264"}[rel]
            text = f"{var.name} {sign} {shown}" + (" entrywise" if var.is_vector else "")
            self.imports.add("Hypothesis")
            out.append(f"Hypothesis({_py_string(text)}, lambda ctx, v: {margin}{', strict=True' if strict else ''})")
        return out

    def _box_note(self, boxed: list[Declared]) -> None:
        if not boxed:
            return
        names = ", ".join(v.name for v in boxed)
        ranges = "; ".join(sorted({v.bounds_text() for v in boxed}))
        self.notes.append(f"{names} {'is' if len(boxed) == 1 else 'are'} unbounded as declared and searched on {ranges} "
                          f"(the default box, {UNBOUNDED_BOX:,} at most in size).")
        degree = _homogeneity(self.decl, self.relations, self.inequalities, self.solutions)
        if degree is not None:
            self.homogeneous = degree
            self.notes.append(f"The statement is homogeneous of degree {degree} in {', '.join(v.name for v in self.decl.variables)} "
                              "and their set is a cone: every point scales into the box, so the box loses nothing.")

    def where_hypotheses(self) -> list[str]:
        out = []
        for rel, spec in self.inequalities:
            if rel.relation in ("<=", "<"):
                expr = rel.rhs - rel.lhs
            elif rel.relation in (">=", ">"):
                expr = rel.lhs - rel.rhs
            else:  # != : |lhs - rhs| > 0
                expr = sympy.Abs(rel.lhs - rel.rhs)
            margin = self.code(expr, f"--where {spec!r}")
            self.imports.add("Hypothesis")
            strict = ", strict=True" if rel.relation in ("<", ">", "!=") else ""
            out.append(f"Hypothesis({_py_string(rel.text)}, lambda ctx, v: {margin}{strict})")
        return out

    def parts(self) -> list[str]:
        out = []
        many = len(self.relations) > 1
        for k, rel in enumerate(self.relations):
            lhs_expr, relation, rhs_expr = rel.lhs, rel.relation, rel.rhs
            lhs_text, rhs_text = rel.lhs_text, rel.rhs_text
            if self.request.tighten:
                lhs_expr, relation, rhs_expr, lhs_text, rhs_text = self._tighten_form(rel)
            name = str(k + 1) if many else "main"
            lhs, rhs = self.code(lhs_expr, "the left-hand side"), self.code(rhs_expr, "the right-hand side")
            read_as = f"{sympy.sstr(lhs_expr)} {relation} {sympy.sstr(rhs_expr)}"
            out.append(
                f"Part({name!r}, relation={relation!r}, statement={_py_string(rel.text)},\n"
                f"             read_as={read_as!r},\n"
                f"             lhs_text={_py_string(lhs_text)}, rhs_text={_py_string(rhs_text)},\n"
                f"             lhs=lambda ctx, v: {lhs},\n"
                f"             rhs=lambda ctx, v: {rhs})")
        return out

    def _tighten_form(self, rel: Relation):
        """``lhs <= C g`` as lhs <= g (the constant that ``verify tighten`` moves); C on the left flips the sides."""
        c = sympy.Symbol(self.request.tighten, real=True)
        if len(self.relations) != 1 or rel.relation not in ("<=", "<", ">=", ">"):
            raise ExpressionError(f"--tighten {c}: the statement must be one relation lhs <= C g or lhs >= C g", self.request.statement, None)
        flip = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}
        sides = [(rel.lhs, rel.lhs_text), (rel.rhs, rel.rhs_text)]
        holding = [i for i, (e, _) in enumerate(sides) if e.has(c)]
        if len(holding) != 1:
            raise ExpressionError(f"--tighten {c}: {c} must appear on one side only", self.request.statement, None)
        i = holding[0]
        if expansion_terms(sides[i][0]) > MAX_EXPANSION_TERMS:
            raise ExpressionError(f"--tighten {c}: that side expands to more than {MAX_EXPANSION_TERMS:,} terms", self.request.statement, None)
        expr = sympy.expand(sides[i][0])
        g = sympy.simplify(expr / c)
        if g.has(c) or sympy.simplify(expr - c * g) != 0:
            raise ExpressionError(f"--tighten {c}: that side must be {c} times an expression without {c} (C (a + b), \\frac{{C}}{{2}} x)", self.request.statement, None)
        other = sides[1 - i]
        g_text = _plain(g)
        if i == 1:
            return other[0], rel.relation, g, other[1], g_text
        return other[0], flip[rel.relation], g, other[1], g_text

    # -- the module ----------------------------------------------------------------------
    def module(self) -> str:
        req = self.request
        variables, strict = self.variables()
        hypotheses = strict + self.where_hypotheses()
        parts = self.parts()
        dims = [f"Dim({d.name!r}, {d.lo}, {d.hi})" for d in self.decl.dims]
        if dims:
            self.imports.add("Dim")
        claim_id = req.claim_id or req.default_id()
        title = req.statement if len(req.statement) <= 60 else req.statement[:57] + "..."
        notes = " ".join(self.notes)
        latex = _latex(req.statement, self.relations)
        uses_fraction = any("Fraction(" in s for s in variables + hypotheses + parts)
        lines = [_docstring(req, self.notes, [reading_text(reading(rel)) for rel in self.relations]), ""]
        if uses_fraction:
            lines.append("from fractions import Fraction\n")
        lines.append(f"from verifier import {', '.join(sorted(self.imports))}")
        if self.domain_imports:
            lines.append(f"from verifier.domains import {', '.join(sorted(self.domain_imports))}")
        if self.helpers:
            lines.append(f"from verifier.frontend.runtime import {', '.join(sorted(self.helpers))}")
        lines += ["", "claim = Claim(",
                  f"    id={claim_id!r},",
                  f"    title={_py_string(title)},",
                  f"    paper={req.paper!r},",
                  '    location="verify expr",',
                  '    kind="statement",',
                  f"    statement={_py_string(req.statement)},",
                  f"    latex={_py_string(latex)},",
                  f"    notes={_py_string(notes)},",
                  f"    dims=[{', '.join(dims)}],",
                  "    variables=[", *[f"        {v}," for v in variables], "    ],"]
        if hypotheses:
            lines += ["    hypotheses=[", *[f"        {h}," for h in hypotheses], "    ],"]
        lines += ["    parts=[", *[f"        {p}," for p in parts], "    ],", ")", ""]
        return "\n".join(lines)


def _const(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f'ctx.const("{q.numerator}/{q.denominator}")'


def _frac(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _plain(expr) -> str:
    """An expression as a reader types it: ``3 - a - b``, ``1/(a*b)``, ``|abc_1|``."""
    text = sympy.sstr(expr, order="none")
    text = re.sub(r"(\w+)\[(\d+)\]", r"\1_\2", text)  # abc[1] -> abc_1, the paper's 1-based subscript
    return re.sub(r"Abs\(([^()]*)\)", r"|\1|", text)


def _latex(statement: str, relations) -> str:
    if "\\" in statement or "^" in statement or "{" in statement:
        return statement
    first = relations[0]
    out = sympy.latex(first.lhs)
    for rel in relations:
        out += f" {LATEX_RELATION[rel.relation]} {sympy.latex(rel.rhs)}"
    return out


def _docstring(req: ExprRequest, notes, readings) -> str:
    body = [req.statement, "", "Read as: " + ";  ".join(readings), "", "Written by `verify expr` from the command", "",
            "    " + req.command(), ""]
    if notes:
        body += [*notes, ""]
    body += ["Lock it with `verify lock --pack THIS_FILE.py`; `verify check` then replays it in CI.", ""]
    text = "\n".join(body)
    if '"""' not in text and not text.endswith("\\") and all(c.isprintable() or c == "\n" for c in text):
        return 'r"""' + text + '"""' if "\\" in text else '"""' + text + '"""'
    return '"""' + text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') + '"""'


# ------------------------------------------------------------------------------ homogeneity
def _homogeneity(decl: Declarations, relations, inequalities, solutions) -> int | None:
    """The degree when every side is homogeneous of one degree in scalars ranging over a cone.

    Then any point ``x`` of a counterexample scales (``t x``, ``t > 0``) into the search box
    without changing the verdict, so a box loses nothing.  None when that is not shown.
    """
    if solutions or any(v.is_vector for v in decl.variables):
        return None
    for v in decl.variables:
        if not (("lo" in v.boxed or v.lo == 0) and ("hi" in v.boxed or v.hi == 0)):
            return None
    if any(expansion_terms(side) > MAX_EXPANSION_TERMS for rel in list(relations) + [r for r, _ in inequalities]
           for side in (rel.lhs, rel.rhs)):
        return None  # too large to simplify: no claim of homogeneity, so the notes say nothing
    t = sympy.Symbol("_t", positive=True)
    scale = {sympy.Symbol(v.py, real=True): t * sympy.Symbol(v.py, real=True) for v in decl.variables}
    degree = None
    for rel in list(relations) + [r for r, _ in inequalities]:
        degrees = set()
        for side in (rel.lhs, rel.rhs):
            d = _degree(side, scale, t)
            if d is False:
                return None
            if d is not None:
                degrees.add(d)
        if len(degrees) > 1:
            return None
        if rel in relations and degrees:
            degree = degrees.pop() if degree is None else degree
    return degree


def _degree(expr, scale, t):
    """k with expr(t x) = t^k expr(x); None for 0 (any degree); False when not homogeneous (or not shown)."""
    if expr == 0:
        return None
    try:
        ratio = sympy.simplify(sympy.powsimp(expr.subs(scale, simultaneous=True) / expr, force=True))
        if ratio.free_symbols - {t}:
            return False
        k = sympy.simplify(t * sympy.diff(ratio, t) / ratio)
        if not k.is_Rational or sympy.simplify(ratio - t**k) != 0:
            return False
        return int(k) if k.is_Integer else k
    except (TypeError, ValueError, ZeroDivisionError):
        return False
