"""JUnit XML for ``verify check``: one test case per claim, part and reading.

Every CI system renders JUnit; a drift is a ``<failure>``, a claim that raised an ``<error>``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..regression import Regression
from ..results import Verdict
from .check_report import evidence


def case_name(o) -> str:
    return f"{o.claim} part {o.part} [{o.reading}]"


def to_xml(reg: Regression) -> str:
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
        case = ET.SubElement(suite, "testcase", {"classname": f"{o.paper}.{o.claim}", "name": case_name(o), "time": f"{o.seconds:.3f}"})
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
