"""JUnit XML for ``verify check``: one test case per claim, part and reading.

Every CI system renders JUnit; a drift is a ``<failure>``, a claim that raised an ``<error>``.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

from ..regression import Regression
from ..results import Verdict
from .check_report import evidence


def case_name(o) -> str:
    return f"{o.claim} part {o.part} [{o.reading}]"


def class_name(o) -> str:
    """One class per claim, without dots: CI viewers split a classname at dots into packages."""
    return f"{o.paper} {o.claim}".replace(".", "_")


def claim_location(check) -> tuple[str, int] | None:
    """(file, line) where the check's part is written in the claim's module; None for a part not written in Python."""
    lhs = check.part.lhs
    code = getattr(lhs, "__code__", None)
    # a claim described by a worker carries where its function is written (verifier.packside.PackCode)
    path, line = (code.co_filename, code.co_firstlineno) if code is not None else (getattr(lhs, "file", ""), getattr(lhs, "line", 0))
    if not path or path.startswith("<"):
        return None
    try:
        rel = os.path.relpath(path)
        path = rel if not rel.startswith("..") else path
    except ValueError:  # another drive
        pass
    return path, line


def to_xml(reg: Regression, checks=None) -> str:
    """``checks``: {(claim, part, reading): Check}, to give each case the file and line of its claim."""
    drifted = reg.drifted
    errors = [o for o in reg.outcomes if o.now == Verdict.ERROR.value]
    suite = ET.Element("testsuite", {
        "name": "verify check",
        "tests": str(len(reg.outcomes)),
        "failures": str(len([o for o in drifted if o not in errors])),
        "errors": str(len(errors)),
        "skipped": "0",
        "time": f"{reg.seconds:.3f}",
    })
    props = ET.SubElement(suite, "properties")
    for k, v in (("lock", reg.lock.path), ("seed", reg.lock.search.seed), ("budget", reg.lock.search.budget), ("dps", reg.lock.search.dps)):
        ET.SubElement(props, "property", {"name": k, "value": str(v)})
    for o in reg.outcomes:
        attrs = {"classname": class_name(o), "name": case_name(o), "time": f"{o.seconds:.3f}"}
        check = (checks or {}).get((o.claim, o.part, o.reading))
        where = claim_location(check) if check is not None else None
        if where is not None:
            attrs.update(file=where[0], line=str(where[1]))
        case = ET.SubElement(suite, "testcase", attrs)
        body = f"locked: {o.locked or '-'}\nnow: {o.now or '-'}\n{evidence(o)}"
        if o.now == Verdict.ERROR.value:
            err = ET.SubElement(case, "error", {"message": f"the claim raised: {o.detail}", "type": "error"})
            err.text = body
        elif o.drift:
            fail = ET.SubElement(case, "failure", {"message": f"{o.change}: {o.detail}" if o.detail else o.change, "type": "drift"})
            fail.text = body
        else:
            ET.SubElement(case, "system-out").text = body
    suites = ET.Element("testsuites")
    suites.append(suite)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
