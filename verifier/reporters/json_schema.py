"""The names and versions of the JSON documents the commands print (``--json``).

Every object a command prints at the top level (each item of a list) begins with ``schema``, the
document's kind, and ``schema_version``, as the stored counterexamples and the lockfile do.  Each
kind has a JSON Schema under ``docs/schema/`` that says what every field means, and
``docs/json.md`` is the guide; ``tests/cli/test_json_schema.py`` validates every command's output
against them, so a field cannot be added, dropped or renamed without its documentation.

A version moves when a field is removed or changes its meaning; a field added leaves it (a
reader ignores what it does not know).
"""

from __future__ import annotations

#: the prefix of every kind's name: the format name the stored files carry, kept through the rename
SCHEMA_PREFIX = "claim-verifier/"
#: document kind -> its version
VERSIONS = {
    "check-result": 1,  # lemma, expr, all --json; the "search" of a check outcome
    "claim": 1,  # list --json, show --json
    "replay": 1,  # replay --json
    "check-outcome": 1,  # check --json
    "proof": 1,  # prove --json
    "tighten": 1,  # tighten --json, expr --tighten --json
    "report-section": 1,  # report --format json
}


def stamped(kind: str, doc: dict) -> dict:
    """``doc`` as the document ``kind``: its ``schema`` and ``schema_version`` first, then its fields
    (a ``schema`` it carried already, as the check result a proof starts from, is replaced)."""
    fields = {k: v for k, v in doc.items() if k not in ("schema", "schema_version")}
    return {"schema": SCHEMA_PREFIX + kind, "schema_version": VERSIONS[kind], **fields}


__all__ = ["SCHEMA_PREFIX", "VERSIONS", "stamped"]
