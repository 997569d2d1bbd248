"""A pack written by someone who wants a reviewer's report to run a script or include a file.

Every text field of the claim carries a payload: HTML that would run (each sets ``window.PWNED``
and opens a dialog), Markdown that would start a heading or a link, LaTeX that would read a
secret file or run a shell command.  The claim itself is honest arithmetic (sum x <= 0 over
x in R^n, false), so ``verify lock`` finds, certifies and stores a counterexample whose report
shows every field.  The secret is a file of the test's own with a random token in it.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from click.testing import CliRunner

from verifier.cli import main

# the pack's module, as its author wrote it; __SECRET__ becomes the secret file's path
TEMPLATE = r"""
from verifier import Claim, Dim, Part, Reading, Vector

SECRET = __SECRET__

claim = Claim(
    id="h<img src=x onerror=window.PWNED=1;alert(1)>",
    title="<script>window.PWNED=2;alert(2)</script>\n# INJECTED HEADING",
    paper="evil-paper",
    location='<img src=x onerror="window.PWNED=3;alert(3)">',
    statement=("[click](javascript:window.PWNED=4) ![leak](file://" + SECRET + ') <iframe src="file://' + SECRET + '"></iframe>'
               "\n\n<script>window.PWNED=5;alert(5)</script>\n\\input{" + SECRET + "}"),
    notes="$$\\input{" + SECRET + "}$$ `` <b onmouseover=alert(6)>x</b> `` \\immediate\\write18{touch PWNED}",
    latex=r"\text{<script>window.PWNED=7;alert(7)</script>} \input{" + SECRET + r"} \immediate\write18{touch PWNED} \href{javascript:alert(8)}{x}",
    dims=[Dim("n", 1, 2)],
    variables=[Vector("x", "n")],
    readings=[Reading("r<svg/onload=window.PWNED=9>", "<svg onload=window.PWNED=10;alert(10)>\n# ANOTHER HEADING")],
    parts=[Part("main<b>", lhs=lambda ctx, v: ctx.sum_all(v.x), rhs=lambda ctx, v: 0,
                statement="<script>window.PWNED=11</script>",
                latex=r"x \le \text{<img src=x onerror=window.PWNED=12;alert(12)>}",
                lhs_text="`` <script>window.PWNED=13</script> `", rhs_text="0\n# THIRD HEADING")],
)
"""

PAYLOAD_MARKERS = ("PWNED", "INJECTED HEADING", "ANOTHER HEADING", "THIRD HEADING")


def verify(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def write_hostile_project(root: Path) -> tuple[Path, str]:
    """A locked project of the hostile pack under ``root``; returns (the secret file, its token)."""
    token = f"SECRET-{secrets.token_hex(8)}"
    secret = root / "secret.txt"
    secret.write_text(token + "\n")
    project = root / "project"
    (project / "hostilepack").mkdir(parents=True)
    (project / "hostilepack" / "claim.py").write_text(TEMPLATE.replace("__SECRET__", repr(str(secret))))
    (project / "pyproject.toml").write_text('[tool.verifier]\npacks = ["hostilepack"]\n')
    return secret, token


def lock_hostile_project(project: Path) -> None:
    r = verify("lock", "--budget", 2000, "--prove-time", 0, "--jobs", 1)
    assert r.exit_code == 0, r.output
