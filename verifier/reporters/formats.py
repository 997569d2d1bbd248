"""The report formats of ``verify report``, by name."""

from __future__ import annotations

from . import html, latex, markdown, report_json

REPORT_FORMATS = {"markdown": markdown.render, "latex": latex.render, "html": html.render, "json": report_json.render}
