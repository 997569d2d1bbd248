"""Every kind's draws, exact points, roundings and proof maps, before and after, compared.

    git archive <commit> | tar -x -C /tmp/before
    python benchmarks/kinds_before_after.py --before /tmp/before [--seeds 5]

Two worker processes, one importing the ``verifier`` of ``--before`` and one this tree's, run
the same seeded tasks on a claim that holds every kind of set (simplex, scaled simplex,
stochastic, unit vectors of the three norms, spheres, ordered vectors, orthogonal and doubly
stochastic matrices, a derived variable, a group of unit vectors drawn from known
configurations) beside free variables of every sort: the structured sampler's batch and the
generator's state after it, the exact point behind sampled rows (``exactify``), the simple
rational points near it (``nearby_simple_points``, ``rounded_in_charts``), each kind's chart
at that point, the float projection of the local search, and the branch-and-bound and SMT
maps of the proof at seeded coordinates, exactly.  Each answer is a sha256 of its exact text;
the report lists every task whose digest differs (none, for a refactoring that keeps every
draw).  Seconds per task are not measured: this compares values only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZE = 512
ROWS = (0, 1, 7, 100, 333)


def _claims():
    """Two claims: every kind at once (dims drawn per seed), and one with a group of unit vectors."""
    from verifier import Claim, Derived, Dim, DoublyStochastic, Matrix, Ordered, Orthogonal, Part, Scalar, Simplex, Sphere, Stochastic, UnitVector, Vector

    everything = Claim(
        "kinds", "every kind", "every kind",
        variables=(
            Scalar("eps", lo=0, hi=2),
            Vector("a", "n", lo=-3, hi=3),
            Vector("b", "n", near="a", radius="eps"),
            Matrix("X", "n", "d"),
            Simplex("p", "n"),
            Simplex("w", "n", total="5/2"),
            Stochastic("P", "n", "d"),
            UnitVector("u", "n"),
            UnitVector("ui", "n", norm="inf"),
            UnitVector("u1", "n", norm=1),
            Sphere("s", "n", radius_squared=2),
            Sphere("t", 3, radius_squared=3),
            Sphere("t2", "n", radius_squared="25/4"),
            Ordered("o", "n", lo=-1, hi=2),
            Ordered("o2", "d", lo=0),
            Ordered("o3", "d"),
            Orthogonal("Q", "d"),
            Orthogonal("Q3", 3),
            DoublyStochastic("D", "n"),
            Scalar("c0", lo=-1, hi=1),
            Derived("c", lambda ctx, v: 1 - v.c0 * v.eps, lo=-5, text="1 - c0 eps"),
        ),
        dims=(Dim("n", 2, 4), Dim("d", 1, 3)),
        parts=(Part("main", lambda ctx, v: v.eps, lambda ctx, v: v.eps + 1),),
    )
    group = Claim(
        "group", "unit vectors", "unit vectors",
        variables=tuple(UnitVector(f"g{i}", "d") for i in range(4)) + tuple(Sphere(f"h{i}", "d", radius_squared=2) for i in range(3)),
        dims=(Dim("d", 2, 4),),
        parts=(Part("main", lambda ctx, v: ctx.sum_all(v.g0 * v.g1), lambda ctx, v: ctx.const(1)),),
    )
    return {"kinds": everything, "group": group}


def _text(value) -> str:
    """Exact text of a nested structure of arrays and numbers (floats by their exact hex)."""
    import numpy as np

    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_text(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_text(v) for v in value) + "]"
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return f"{value.shape}" + _text(list(value.ravel()))
        return f"{value.shape}{value.dtype}" + hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()
    if isinstance(value, float):
        return value.hex()
    return str(value)


def _digest(value) -> str:
    return hashlib.sha256(_text(value).encode()).hexdigest()[:16]


def _proof_domain(check, dims):
    try:
        from verifier.prove.domain import make_proof_box as make
    except ImportError:
        from verifier.prove.domain import make_proof_box as make
    from fractions import Fraction

    return make(check, dims, (Fraction(-2), Fraction(2)))


def worker(tree: str) -> None:
    sys.path.insert(0, tree)
    import numpy as np
    from flint import fmpq

    from verifier.contexts import ExactContext, FloatContext
    from verifier.prove.parametrisation import Parametrisation
    from verifier.rational_points import nearby_simple_points, rounded_in_charts
    from verifier.sampling import Sampler, exactify, project

    claims = _claims()
    exact = ExactContext()
    for line in sys.stdin:
        task = json.loads(line)
        check = claims[task["claim"]].checks()[0]
        sampler = Sampler(check)
        rng = np.random.default_rng(task["seed"])
        out = {}
        try:
            if task["what"] == "draws":
                dims = sampler.pick_dims(rng)
                data = sampler.sample(dims, rng, SIZE)
                out = {"dims": dims, "data": data, "state": rng.random(4)}
            elif task["what"] == "float-projection":
                dims = sampler.pick_dims(rng)
                data = sampler.sample(dims, rng, SIZE)
                moved = {k: v + 0.01 * rng.standard_normal(np.shape(v)) for k, v in data.items()}
                out = {"projected": project(FloatContext(), check, moved, dims)}
            elif task["what"] == "exact-points":
                dims = sampler.pick_dims(rng)
                data = sampler.sample(dims, rng, SIZE)
                for row in ROWS:
                    point = exactify(check, data, row, dims)
                    charts = {}
                    for var in check.variables:
                        dom = var.domain
                        chart = dom.chart(np.asarray(point[var.name], dtype=object)[0]) if dom is not None and hasattr(dom, "chart") else None
                        charts[var.name] = None if chart is None else chart.params
                    near = nearby_simple_points(check, point, dims, lambda d: project(exact, check, d, dims))
                    rounded = rounded_in_charts(check, point, dims, lambda d: project(exact, check, d, dims), (2, 3, 7, 100))
                    out[row] = {"point": point, "charts": charts, "near": near, "rounded": rounded}
            elif task["what"] in ("bnb-map", "smt-map"):
                dims = {d.name: int(rng.integers(d.lo, min(d.hi, 3) + 1)) for d in check.dims}
                domain = _proof_domain(check, dims)
                param = Parametrisation(check, domain, smt=task["what"] == "smt-map")
                for k, root in enumerate(param.roots()[:6]):
                    values = []
                    for coord, span in zip(param.coords, root):
                        if span is None:
                            values.append(None)
                        elif span[0] == span[1]:
                            values.append(span[0])
                        else:
                            t = fmpq(int(rng.integers(0, 9)), 8)
                            values.append(fmpq(span[0].numerator, span[0].denominator) * (1 - t) + fmpq(span[1].numerator, span[1].denominator) * t)
                    values = [v if v is not None else fmpq(int(rng.integers(-4, 5)), 3) for v in values]
                    data = param.data(exact, values)
                    out[k] = {"coords": [c.label for c in param.coords], "data": data, "built_in": sorted(param.built_in),
                              "hypotheses": [h.text for h in param.hypotheses], "constraints": [c.text for c in param.constraints]}
        except Exception as exc:  # noqa: BLE001 - the same error before and after is the same answer
            out = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps({"digest": _digest(out), "error": out.get("error") if isinstance(out, dict) else None}), flush=True)


def tasks(seeds: int):
    for claim in ("kinds", "group"):
        for what in ("draws", "float-projection", "exact-points", "bnb-map", "smt-map"):
            if claim == "group" and what.endswith("-map"):
                continue
            for seed in range(seeds):
                yield {"claim": claim, "what": what, "seed": seed}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--before", type=Path, help="a tree holding the engine to compare against")
    p.add_argument("--seeds", type=int, default=5)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args.worker)
    if args.before is None:
        p.error("--before is required")
    engines = {name: subprocess.Popen([sys.executable, __file__, "--worker", str(tree)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, cwd="/tmp")
               for name, tree in (("before", args.before), ("after", ROOT))}
    same, differ, errors = 0, [], []
    for task in tasks(args.seeds):
        replies = {}
        for name, proc in engines.items():
            proc.stdin.write(json.dumps(task) + "\n")
            proc.stdin.flush()
            replies[name] = json.loads(proc.stdout.readline())
        label = f"{task['claim']} {task['what']} seed {task['seed']}"
        if replies["before"]["error"] or replies["after"]["error"]:
            errors.append(f"{label}: before {replies['before']['error']}; after {replies['after']['error']}")
        if replies["before"]["digest"] == replies["after"]["digest"]:
            same += 1
        else:
            differ.append(label)
    for proc in engines.values():
        proc.stdin.close()
        proc.wait()
    for line in errors:
        print(f"raised (compared as text): {line}")
    print(f"identical: {same} of {same + len(differ)} tasks" + (f"; differ: {', '.join(differ)}" if differ else ""))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
