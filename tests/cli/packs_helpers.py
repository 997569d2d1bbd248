"""Claim packs written into a temporary folder by the tests, from a seed.

Each pack states two claims about x in R^n, n <= N: ``1``, (sum |x_i|)^2 <= c (sum x_i^2)
with c drawn in [1, 2), false for every n >= 2 (x = (1, 1) gives 4 > 2c), and ``2``,
sum x_i^2 <= (sum |x_i|)^2, true.  N and c come from the seed, so nothing here is tuned to
what the search happens to find; a refutation is checked again with Fractions by the test.
"""

from __future__ import annotations

import random
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
from click.testing import CliRunner

from verifier.cli import main


def verify(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(r, *needles):
    """``r`` ended in exit 2 with one ``error:`` line holding every needle, and no traceback."""
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr
    errors = [line for line in r.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, r.stderr
    for needle in needles:
        assert needle in errors[0], (needle, r.stderr)


def locked_project(root: Path, package: str, source: str, *lock_args) -> Path:
    """``root`` holding the package ``package`` (one module, ``source``) as its pack, locked by
    ``verify lock LOCK_ARGS`` run there."""
    (root / package).mkdir(parents=True, exist_ok=True)
    (root / package / "claims.py").write_text(source, encoding="utf-8")
    (root / "pyproject.toml").write_text(f'[tool.verifier]\npacks = ["{package}"]\n')
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        r = verify("lock", *lock_args)
    assert r.exit_code == 0, r.output
    return root


def pack_constants(seed: int) -> tuple[int, Fraction]:
    rng = random.Random(seed)
    return rng.randint(2, 5), Fraction(rng.randint(4, 7), 4)  # c in [1, 2): false from n = 2 on


def claim_source(claim_id: str, paper: str, n_max: int, c: Fraction, false_one: bool = True) -> str:
    lhs, rhs = ("square_of_norm_1", "sum_of_squares") if false_one else ("sum_of_squares", "square_of_norm_1")
    factor = f"ctx.const('{c}') * " if false_one else ""
    return textwrap.dedent(f"""
        Claim(id={claim_id!r}, title="norms {claim_id}", paper={paper!r},
              statement="an inequality between the 1- and 2-norms",
              dims=[Dim("n", 1, {n_max})], variables=[Vector("x", "n")],
              parts=[Part("main", lhs=lambda ctx, v: {lhs}(ctx, v.x), rhs=lambda ctx, v: {factor}{rhs}(ctx, v.x))])
    """).strip()


HELPERS = textwrap.dedent("""
    def square_of_norm_1(ctx, x):
        s = ctx.norm_1(x)
        return s * s


    def sum_of_squares(ctx, x):
        return ctx.sum_all(x * x)
""")

IMPORTS = "from verifier import Claim, Dim, Part, Vector\n"


def write_package_pack(root: Path, name: str, paper: str, seed: int) -> Path:
    """A package whose claims sit in a module named ``claims.py`` and in a subpackage."""
    n_max, c = pack_constants(seed)
    pkg = root / name
    (pkg / "more").mkdir(parents=True)
    (pkg / "__init__.py").write_text(f'PAPER = "{paper}"\n')
    (pkg / "norms.py").write_text(HELPERS)
    (pkg / "claims.py").write_text(IMPORTS + "from .norms import square_of_norm_1, sum_of_squares\n\n"
                                   f"claims = [{claim_source('1', paper, n_max, c)}]\n")
    (pkg / "more" / "__init__.py").write_text("")
    (pkg / "more" / "second.py").write_text(IMPORTS + "from ..norms import square_of_norm_1, sum_of_squares\n\n"
                                            f"claim = {claim_source('2', paper, n_max, c, false_one=False)}\n")
    return pkg


def write_module_folder(root: Path, name: str, paper: str, seed: int) -> Path:
    """A folder of modules without ``__init__.py``; they import each other relatively."""
    n_max, c = pack_constants(seed)
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "norms.py").write_text(HELPERS)
    (folder / "first.py").write_text(IMPORTS + "from .norms import square_of_norm_1, sum_of_squares\n\n"
                                     f"claim = {claim_source('1', paper, n_max, c)}\n")
    return folder


def violates(cx_vars: dict, c: Fraction) -> bool:
    """(sum |x_i|)^2 > c sum x_i^2, in exact rationals, for a stored counterexample."""
    x = [Fraction(v) for v in cx_vars["x"]]
    return sum(abs(v) for v in x) ** 2 > c * sum(v * v for v in x)
