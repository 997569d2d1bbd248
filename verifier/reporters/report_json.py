"""``verify report --format json``: the report's data, a section per claim with the outcome of each check."""

from __future__ import annotations

import json

from .check_report import outcome_to_dict
from .json_report import claim_to_dict
from .json_schema import stamped
from .report_data import Section


def render(secs: list[Section], reg) -> str:
    """One object per claim: the claim as its pack states it and each check's outcome, as `verify check --json` gives it."""
    doc = [stamped("report-section", {"claim": claim_to_dict(sec.claim), "checks": [outcome_to_dict(item.outcome) for item in sec.items]})
           for sec in secs]
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
