"""Constraints that contradict the box: refused before a search that could only find nothing.

The claim's own hypotheses (declared bounds, ``--where`` relations, the definitions of Derived
variables and the sets' membership) are evaluated in the z3 context at the smallest sizes and
asserted together; ``unsat`` means no point satisfies them, and z3's unsat core names the
constraints that clash.  A hypothesis z3 cannot state (``exp``, ``sqrt``) is left out, which
can only make the set larger: this never refuses a satisfiable claim.  ``unknown`` (a timeout
in nonlinear arithmetic) lets the claim through.
"""

from __future__ import annotations

import numpy as np
import z3

from ..claims import Claim
from ..prove.z3ctx import NotDecidable, Z3Context
from .errors import ExpressionError

Z3 = Z3Context()
#: z3's time for the whole question (milliseconds): the answer is a courtesy, not a verdict
TIMEOUT_MS = 2000


def check_satisfiable(claim: Claim, request) -> None:
    check = claim.checks()[0]
    dims = {d.name: d.lo for d in check.dims}
    data = {v.name: Z3.symbols(v.name, v.concrete_shape(dims)) for v in check.variables}
    values = check.values(data, dims)
    solver = z3.Solver()
    solver.set("timeout", TIMEOUT_MS)
    tracked = {}
    for k, hyp in enumerate(check.hypotheses):
        try:
            with Z3.precision():
                margin = np.ravel(np.asarray(hyp.margin(Z3, values), dtype=object))[0]
        except (NotDecidable, ArithmeticError, TypeError, ValueError):
            continue
        if not z3.is_expr(margin):
            continue
        label = z3.Bool(f"h{k}")
        tracked[str(label)] = hyp.text
        solver.assert_and_track(margin > 0 if hyp.strict else margin >= 0, label)
    if solver.check() != z3.unsat:
        return
    clash = [tracked[str(b)] for b in solver.unsat_core()]
    wheres = [w for w in request.where if any(_same(w, text) for text in clash)]
    source = f"--where {wheres[0]!r}" if wheres else "the declarations"
    raise ExpressionError(f"the constraints contradict each other or the box: no point has {'; '.join(clash)} "
                          "(z3 finds the conjunction unsatisfiable)", wheres[0] if wheres else "", None, source)


def _same(where: str, text: str) -> bool:
    return "".join(text.split()) in "".join(where.split()) or "".join(where.split()) in "".join(text.split())
