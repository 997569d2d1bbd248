"""The report formats of ``verify report``, by name; each format's module is loaded when it renders."""

from __future__ import annotations

import importlib

#: format name -> the module under ``verifier.reporters`` whose ``render`` writes it
REPORT_FORMATS = {"markdown": "markdown", "latex": "latex", "html": "html", "json": "report_json"}


def renderer(name: str):
    """The ``render(sections, regression, appendix=...)`` of format ``name``."""
    return importlib.import_module(f"{__package__}.{REPORT_FORMATS[name]}").render
