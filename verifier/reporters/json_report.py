"""Machine-readable output: one JSON list, one object per (claim, part, reading)."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from typing import Iterable, Mapping

from ..claims import Claim
from ..domains import kind_text
from ..results import CheckResult, ProofAttempt
from .json_schema import stamped
from .proof_text import result_verdict


def _finite(x):
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def result_to_dict(r: CheckResult, saved: Mapping[tuple, str] | None = None, unsaved: Mapping[tuple, str] | None = None) -> dict:
    cx = r.counterexample
    counterexample = None
    if cx is not None:
        counterexample = {
            "vars": cx.vars,
            "derived": dict(cx.derived) or None,
            "dims": dict(cx.dims),
            "lhs": cx.lhs,
            "rhs": cx.rhs,
            "margin": cx.margin,
            "certificate": cx.certificate,
            "shrunk": cx.shrunk,
            "found_by": asdict(cx.found_by) if cx.found_by else None,
            "file": (saved or {}).get((r.claim, r.part, r.reading)),
        }
        if (r.claim, r.part, r.reading) in (unsaved or {}):
            counterexample["not_saved"] = unsaved[(r.claim, r.part, r.reading)]
    s = r.stats
    return stamped("check-result", {
        "claim": r.claim,
        "part": r.part,
        "reading": r.reading,
        "kind": r.kind,
        "title": r.title,
        "statement": r.statement,
        "read_as": r.read_as or None,
        "relation": r.relation,
        "verdict": r.verdict.value,
        "certified": r.certified,
        "method": r.method,
        "counterexample": counterexample,
        "best_margin": _finite(s.best_margin),
        "best_relative_margin": _finite(s.best_relative_margin),
        "max_ratio": _finite(s.max_ratio),
        "evaluations": s.evaluations,
        "seconds": round(r.seconds, 4),
        "seed": r.seed,
        "dps": r.dps,
        "budget": r.budget,
        "stop": None if r.stop is None else r.stop.value,
        "stop_reason": r.stop_reason,
        "message": r.message,
        "domain": r.domain or None,
        "audit": result_verdict(r.verdict.value, r.proof),
        "proof": proof_to_dict(r.proof),
        "recheck": {
            "float_violations": s.float_violations,
            "rechecked": s.rechecked,
            "rejected": s.rejected_by_recheck,
            "equalities": s.tight_points,
            "undecided_ties": s.tight_undecided,
            "undecided_tie_detail": s.tight_detail,
            "worst_rejected_float_margin": _finite(s.worst_rejected_float_margin),
        },
        "undefined": {
            "float64_nonfinite": s.nonfinite,
            "reevaluated": s.undefined_rechecked,
            "undefined_at_every_precision": s.undefined,
            "example": s.undefined_example,
        },
    })


def proof_to_dict(p: ProofAttempt | None) -> dict | None:
    if p is None:
        return None
    return {
        "status": p.status.value,
        "domain": p.domain,
        "domain_spec": dict(p.spec) or None,
        "method": p.method or None,
        "volume_percent": p.volume_percent,
        "seconds": round(p.seconds, 4),
        "time_limit": p.time_limit,
        "message": p.message,
        "also": list(p.also),
        "identical_sides": p.identical_sides,
        "strategy": p.strategy or None,
        "narrower": p.narrower or None,
        "covers": p.covers or None,
        "stuck": p.stuck or None,
        "attempts": list(p.attempts),
        "kernel": p.kernel or None,  # "checked" / "unchecked: why": what Coq made of the locked certificate
    }


def dumps_results(results: Iterable[CheckResult], saved=None, unsaved=None) -> str:
    return json.dumps([result_to_dict(r, saved, unsaved) for r in results], indent=2, ensure_ascii=False)


def claim_to_dict(claim: Claim) -> dict:
    return stamped("claim", {
        "id": claim.id,
        "kind": claim.kind,
        "title": claim.title,
        "paper": claim.paper,
        "location": claim.location,
        "statement": claim.statement,
        "latex": claim.latex,
        "notes": claim.notes,
        "dims": {d.name: [d.lo, d.hi] for d in claim.dims},
        "variables": [
            {"name": v.name, "shape": list(v.shape), "kind": kind_text(v), "lo": None if v.lo is None else v.lo.plain, "hi": None if v.hi is None else v.hi.plain, "near": v.near, "radius": v.radius}
            for v in claim.variables
        ],
        "hypotheses": [h.text for h in claim.hypotheses],
        "parts": [{"name": p.name, "statement": p.statement, "read_as": p.read_as or None, "relation": p.relation, "latex": p.latex,
                   "hypotheses": [h.text for h in p.hypotheses]}
                  for p in claim.parts],
        "readings": [{"name": r.name, "summary": r.summary, "parts": list(r.parts) if r.parts else None} for r in claim.readings],
    })
