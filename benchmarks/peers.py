"""Our prover against its peers on the pack's exp and softmax claims: one process per run.

    python benchmarks/peers.py [--limit 120] [--repeat 3] [--only B.2-n4,...] [--engines ours,z3,...]
                               [--before TREE] [--json benchmarks/results-peers.json]

Every (engine, case) runs in a fresh process with a time limit (killed past it), ``--repeat``
times; the table gives the verdict and the median time (a run that times out is not repeated:
the peer is not going to get faster).  ``--before TREE`` adds this prover as of another tree
(``git archive COMMIT | tar -x -C TREE``) as the engine ``before``, side by side in the same
run, so that a loaded machine hits both alike; the load (``uptime``) is printed and stored.

The cases (a in [-5, 5]^n, eps in [1/100, 2], |b_i| <= eps; the claims as the pack states them):

* ``B.2`` -- ||softm(a + b) - softm(a)||_inf <= 2 (e^eps - 1), n = 2, 3, 4;
* ``softmax-lip`` -- ||softm(a + b) - softm(a)||_inf <= eps, a softmax Lipschitz-type bound
  (true: softmax is 1/2-Lipschitz from l_inf to l_inf), n = 2, 3.  The issue's figures for "a
  softmax Lipschitz-type bound" name no claim of the pack; the pack's Lipschitz statements
  (D.4, D.5, softmax-lipschitz) are tight where b = 0 or x = y, which no peer proves either, so
  this is the bound that fits its figures, stated here;
* ``4.2-1`` -- Lemma 4.2 (1), |exp(a + b) - exp(a)| <= (e^eps - 1) exp(a), n = 1 (an equality
  at b = eps: no room at all).

What each engine's "proved" means -- every one is asked to show the *negation* empty:

* ``ours`` -- ``verify prove`` (method auto): PROVED is rigorous (z3 unsat, or branch and
  bound in arb ball arithmetic with every box closed); REFUTED has an exact certificate.
* ``z3`` (pip install z3-solver) -- z3 has no exp; it gets the claim with every exp(t) a fresh
  positive unknown and exp's order, product and tangent relations (the abstraction our
  prover uses, :mod:`verifier.prove.smt_exp`).  unsat is a proof; sat is not a counterexample.
* ``cvc5`` (pip install cvc5) -- native exp (transcendental extension, logic ALL).  unsat is a
  proof; cvc5 rarely answers sat with exp (a model is not exact).
* ``dreal`` (pip install dreal; it imports only with libibex 2.7.4 built from dReal's own ibex
  fork, with the IbexOpt plugin, and Debian's coinor-libclp-dev, libnlopt0, liblapack3) --
  native exp, delta = 1e-3.  unsat is a proof (dReal's unsat is sound); delta-sat says only
  that a 1e-3-weakening of the negation is satisfiable: *not* a counterexample, not a proof.
* ``codac`` (pip install codac) -- for each disjunct of the negation ``g(x) > 0``, a paving of
  the domain with the forward-backward contractor of ``g(x) in [0, oo)`` (and the relation
  ``|b_i| <= eps``) down to boxes of width 1e-3, each left box contracted once more: proved
  when nothing is left (outward-rounded interval arithmetic); boxes left are "undecided".

A peer that is not installed is skipped, and said so.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LO, HI, EPS_LO, EPS_HI = Fraction(-5), Fraction(5), Fraction(1, 100), Fraction(2)
CASES = {
    "B.2-n2": ("B.2", 2), "B.2-n3": ("B.2", 3), "B.2-n4": ("B.2", 4),
    "softmax-lip-n2": ("softmax-lip", 2), "softmax-lip-n3": ("softmax-lip", 3),
    "4.2-1-n1": ("4.2-1", 1),
}
ENGINES = ("ours", "z3", "cvc5", "dreal", "codac")
INSTALL = {"z3": "z3-solver", "cvc5": "cvc5", "dreal": "dreal", "codac": "codac"}


# --------------------------------------------------------------------- the claims, as terms
class Ops:
    """What a peer's terms offer: numbers, + - * /, exp; comparisons are built by the peer."""

    def const(self, q: Fraction): ...
    def exp(self, t): ...


def negation(claim: str, n: int, ops: Ops, var):
    """(atoms, bounds): the negated claim as a disjunction of ``g > 0``, and every variable's box.

    |x| > r is split into x > r or -x > r, and softmax is written exp(x_i) / sum_j exp(x_j): the
    rewriting the peers need (no abs, no max)."""
    a = [var(f"a{i}") for i in range(n)]
    eps = var("eps")
    b = [var(f"b{i}") for i in range(n)]
    bounds = {f"a{i}": (LO, HI) for i in range(n)}
    bounds.update({"eps": (EPS_LO, EPS_HI)}, **{f"b{i}": (-EPS_HI, EPS_HI) for i in range(n)})
    relation = [eps - x for x in b] + [eps + x for x in b]  # |b_i| <= eps: each >= 0
    one = ops.const(Fraction(1))
    if claim == "4.2-1":
        diff = ops.exp(a[0] + b[0]) - ops.exp(a[0])
        rhs = (ops.exp(eps) - one) * ops.exp(a[0])
        return [diff - rhs, -diff - rhs], bounds, relation
    rhs = (ops.exp(eps) - one) * ops.const(Fraction(2)) if claim == "B.2" else eps
    moved = [ops.exp(x + y) for x, y in zip(a, b)]
    still = [ops.exp(x) for x in a]
    atoms = []
    for i in range(n):
        diff = moved[i] / _sum(moved) - still[i] / _sum(still)
        atoms += [diff - rhs, -diff - rhs]
    return atoms, bounds, relation


def _sum(terms):
    out = terms[0]
    for t in terms[1:]:
        out = out + t
    return out


# ------------------------------------------------------------------------------ the peers
def run_z3(claim, n, limit):
    import z3

    from verifier.prove.smt_exp import ExpAbstraction

    abstraction = ExpAbstraction()

    class Z3Ops(Ops):
        def const(self, q):
            return z3.RealVal(q)

        def exp(self, t):
            return abstraction._exp_one(t)

    atoms, bounds, relation = negation(claim, n, Z3Ops(), z3.Real)
    solver = z3.Solver()
    solver.set("timeout", int(limit * 1000))
    for name, (lo, hi) in bounds.items():
        x = z3.Real(name)
        solver.add(x >= z3.RealVal(lo), x <= z3.RealVal(hi))
    solver.add(*[r >= 0 for r in relation], z3.Or(*[g > 0 for g in atoms]), *abstraction.facts())
    answer = solver.check()
    if answer == z3.unsat:
        return "proved"
    return "sat (of the abstraction: no counterexample)" if answer == z3.sat else f"unknown ({solver.reason_unknown()})"


def run_cvc5(claim, n, limit):
    import cvc5
    from cvc5 import Kind

    solver = cvc5.Solver()
    solver.setLogic("ALL")
    solver.setOption("tlimit-per", str(int(limit * 1000)))
    real = solver.getRealSort()
    names = {}

    class Term:
        def __init__(self, t):
            self.t = t

        def _op(kind, swap=False):
            def f(self, other):
                x, y = (other, self) if swap else (self, other)
                return Term(solver.mkTerm(kind, x.t, y.t))
            return f

        __add__, __sub__, __mul__, __truediv__ = _op(Kind.ADD), _op(Kind.SUB), _op(Kind.MULT), _op(Kind.DIVISION)

        def __neg__(self):
            return Term(solver.mkTerm(Kind.NEG, self.t))

    class Cvc5Ops(Ops):
        def const(self, q):
            return Term(solver.mkReal(q.numerator, q.denominator))

        def exp(self, t):
            return Term(solver.mkTerm(Kind.EXPONENTIAL, t.t))

    def var(name):
        if name not in names:
            names[name] = Term(solver.mkConst(real, name))
        return names[name]

    ops = Cvc5Ops()
    atoms, bounds, relation = negation(claim, n, ops, var)
    zero = solver.mkReal(0)
    for name, (lo, hi) in bounds.items():
        solver.assertFormula(solver.mkTerm(Kind.GEQ, var(name).t, ops.const(lo).t))
        solver.assertFormula(solver.mkTerm(Kind.LEQ, var(name).t, ops.const(hi).t))
    for r in relation:
        solver.assertFormula(solver.mkTerm(Kind.GEQ, r.t, zero))
    solver.assertFormula(solver.mkTerm(Kind.OR, *[solver.mkTerm(Kind.GT, g.t, zero) for g in atoms]))
    answer = solver.checkSat()
    return "proved" if answer.isUnsat() else "sat (not exact with exp)" if answer.isSat() else f"unknown ({answer.getUnknownExplanation()})"


def run_dreal(claim, n, limit):
    import dreal

    class DrealOps(Ops):
        def const(self, q):
            return dreal.Expression(float(q)) if Fraction(float(q)) == q else dreal.Expression(q.numerator) / q.denominator

        def exp(self, t):
            return dreal.exp(t)

    names = {}
    var = lambda name: names.setdefault(name, dreal.Variable(name))
    atoms, bounds, relation = negation(claim, n, DrealOps(), var)
    facts = [f for name, (lo, hi) in bounds.items() for f in (var(name) >= float(lo), var(name) <= float(hi))]
    facts += [r >= 0 for r in relation]
    # the boxes' ends are dyadic or 1/100: 0.01 as a double is within 1e-18 of it, far inside delta
    formula = dreal.And(*facts, dreal.Or(*[g > 0 for g in atoms]))
    config = dreal.Config()
    config.precision = 1e-3
    box = dreal.CheckSatisfiability(formula, config)
    return "proved" if box is None else "delta-sat (not a counterexample, not a proof)"


def run_codac(claim, n, limit):
    import codac

    order = [f"a{i}" for i in range(n)] + ["eps"] + [f"b{i}" for i in range(n)]
    x = codac.VectorVar(len(order))

    class CodacOps(Ops):
        def const(self, q):
            return codac.Interval(float(q)) if Fraction(float(q)) == q else codac.Interval(q.numerator) / q.denominator

        def exp(self, t):
            return codac.exp(t)

    atoms, bounds, relation = negation(claim, n, CodacOps(), lambda name: x[order.index(name)])
    box = codac.IntervalVector([[float(bounds[k][0]), float(bounds[k][1])] for k in order])
    box[order.index("eps")] = codac.Interval(1) / 100 | codac.Interval(2)
    deadline = time.monotonic() + limit
    # the relation |b_i| <= eps joins each disjunct's contractor: g > 0 and every r >= 0
    for g in atoms:
        f = codac.AnalyticFunction([x], codac.vec(g, *relation))
        image = codac.IntervalVector([[0, codac.oo]] * (1 + len(relation)))
        left = deadline - time.monotonic()
        if left <= 0:
            return "timeout"
        contractor = codac.CtcInverse(f, image)
        paving = codac.pave(box, contractor, 1e-3, left)
        # pave does not contract the boxes it leaves at the smallest width: once more, each
        for b in paving.boxes(codac.PavingOut.outer):
            contractor.contract(b)
            if not b.is_empty():
                return "undecided (boxes left at width 1e-3 or time)"
    return "proved"


def run_ours(claim, n, limit):
    from verifier.prove import make_proof_box, prove

    check = our_check(claim)
    boxes = {"a": (LO, HI), "eps": (EPS_LO, EPS_HI)}
    p = prove(check, make_proof_box(check, {"n": n}, None, boxes), "auto", limit)
    return f"{p.result.verdict.value} ({p.result.method}; {p.details.boxes_examined} boxes)"


def our_check(claim):
    if claim == "B.2":
        from lemmas import REGISTRY

        return REGISTRY.get("B.2").checks()[0]
    if claim == "4.2-1":
        from lemmas import REGISTRY

        return REGISTRY.get("4.2").checks(part="1", reading="intended")[0]
    from verifier import Claim, Dim, Part, Scalar, Vector
    from verifier.library import softmax

    return Claim(
        id="softmax-lip", kind="lemma", paper="benchmark", location="-", title="softmax Lipschitz-type bound",
        statement="||softm(a + b) - softm(a)||_inf <= eps when ||b||_inf <= eps", dims=[Dim("n", 1, 8)],
        variables=[Vector("a", "n"), Scalar("eps", lo=0), Vector("b", "n", radius="eps")],
        parts=[Part("main", lhs=lambda ctx, v: ctx.norm_inf(softmax(ctx, v.a + v.b) - softmax(ctx, v.a)),
                    rhs=lambda ctx, v: v.eps, lhs_text="||softm(a+b) - softm(a)||_inf", rhs_text="eps")],
    ).checks()[0]


RUNNERS = {"ours": run_ours, "before": run_ours, "z3": run_z3, "cvc5": run_cvc5, "dreal": run_dreal, "codac": run_codac}
MODULES = {"z3": "z3", "cvc5": "cvc5", "dreal": "dreal", "codac": "codac"}


# ------------------------------------------------------------------------------ the driver
def _available(engine: str, before: str | None) -> str | None:
    """None when the engine can run here, else why not."""
    if engine == "before":
        return None if before else "no --before tree"
    module = MODULES.get(engine)
    if module is None:
        return None
    probe = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    if probe.returncode:
        return f"not installed (pip install {INSTALL[engine]}): {probe.stderr.strip().splitlines()[-1] if probe.stderr.strip() else ''}"
    return None


def _one_run(engine: str, case: str, limit: float, before: str | None) -> dict:
    tree = before if engine == "before" else str(ROOT)
    env = {**os.environ, "PYTHONPATH": tree}
    start = time.monotonic()
    try:
        out = subprocess.run([sys.executable, __file__, "--worker", engine, case, str(limit)], capture_output=True, text=True,
                             timeout=limit + 30, env=env, cwd=tree)
    except subprocess.TimeoutExpired:
        return {"verdict": "timeout", "seconds": time.monotonic() - start}
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode or not lines:
        return {"verdict": f"error: {(out.stderr.strip().splitlines() or ['exit ' + str(out.returncode)])[-1][:160]}",
                "seconds": time.monotonic() - start}
    return json.loads(lines[-1])


#: what each engine imports before its clock starts (the time is the solver's, not Python's start-up)
IMPORTS = {"ours": ("verifier.prove", "lemmas"), "before": ("verifier.prove", "lemmas"), "z3": ("z3", "verifier.prove.smt_exp"),
           "cvc5": ("cvc5",), "dreal": ("dreal",), "codac": ("codac",)}


def worker(engine: str, case: str, limit: float) -> None:
    import importlib

    claim, n = CASES[case]
    for module in IMPORTS[engine]:
        importlib.import_module(module)
    start = time.monotonic()
    verdict = RUNNERS[engine](claim, n, limit)
    seconds = time.monotonic() - start
    if seconds > limit:
        verdict = f"timeout ({verdict})"
    print(json.dumps({"verdict": verdict, "seconds": seconds}), flush=True)


def _load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per run (killed past it)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per engine and case; the median time is reported")
    ap.add_argument("--only", default="", help="comma-separated cases: " + ", ".join(CASES))
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma-separated engines: ours, before, " + ", ".join(ENGINES[1:]))
    ap.add_argument("--before", default=None, help="a tree of this prover to compare with (engine 'before')")
    ap.add_argument("--json", default=None, help="write the rows here")
    args = ap.parse_args()
    engines = [e for e in args.engines.split(",") if e]
    if args.before and "before" not in engines:
        engines.insert(1, "before")
    cases = [c for c in (args.only.split(",") if args.only else CASES) if c]
    for c in cases:
        if c not in CASES:
            sys.exit(f"unknown case {c!r}; cases: {', '.join(CASES)}")
    skipped = {e: why for e in engines if (why := _available(e, args.before))}
    for e, why in skipped.items():
        print(f"skipping {e}: {why}", file=sys.stderr)
    load_before = _load()
    print(load_before, file=sys.stderr)
    rows = []
    for case in cases:
        for engine in (e for e in engines if e not in skipped):
            runs = []
            for _ in range(args.repeat):
                runs.append(_one_run(engine, case, args.limit, args.before))
                if runs[-1]["verdict"].startswith(("timeout", "error")):
                    break  # no faster the next time
            row = {"case": case, "engine": engine, "verdict": runs[-1]["verdict"],
                   "median_seconds": statistics.median(r["seconds"] for r in runs), "runs": runs}
            rows.append(row)
            print(f"{case:16} {engine:7} {row['median_seconds']:8.2f} s  {row['verdict']}", file=sys.stderr, flush=True)
    load_after = _load()
    print(load_after, file=sys.stderr)
    if args.json:
        out = {"load_before": load_before, "load_after": load_after, "limit": args.limit, "repeat": args.repeat,
               "before": args.before, "skipped": skipped, "rows": rows}
        path = Path(args.json)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(out, indent=1) + "\n")
        tmp.replace(path)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    else:
        main()
