"""A statement as it was read, for people: ``2*x*y**2 <= x**2 + y**4`` shown as ``2·x·y² ≤ x² + y⁴``.

The reading travels as Python syntax (sympy's printing of what ``verify expr`` read: the JSON
carries it so); this renders it on one line with the usual signs -- a product ``·``, integer
powers as superscripts, ``√``, ``|x|``, ``Σ`` -- and every parenthesis the precedence needs,
so that it is as unambiguous as the Python.  Python's own parser (``ast``) reads it: a
reading that is not a Python expression is shown as it is.
"""

from __future__ import annotations

import ast

_SUPERSCRIPT = str.maketrans("0123456789-", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079\u207b")
_RELATIONS = {ast.LtE: "\u2264", ast.GtE: "\u2265", ast.Lt: "<", ast.Gt: ">", ast.Eq: "=", ast.NotEq: "\u2260"}
_NAMES = {"pi": "\u03c0", "E": "e", "alpha": "\u03b1", "beta": "\u03b2", "gamma": "\u03b3", "delta": "\u03b4",
          "epsilon": "\u03b5", "varepsilon": "\u03b5", "eta": "\u03b7", "theta": "\u03b8", "lambda_": "\u03bb",
          "mu": "\u03bc", "nu": "\u03bd", "rho": "\u03c1", "sigma": "\u03c3", "tau": "\u03c4", "phi": "\u03c6",
          "psi": "\u03c8", "omega": "\u03c9", "kappa": "\u03ba", "zeta": "\u03b6", "xi": "\u03be", "chi": "\u03c7"}
_REDUCTIONS = {"Sum": "\u03a3", "Product": "\u03a0"}
# precedence of what a rendered piece is (for the parentheses around it)
_ATOM, _POWER, _UNARY, _PRODUCT, _SUM = 5, 4, 3, 2, 1


def reading_text(python: str) -> str:
    """The reading on one line for a reader (the Python text itself if it does not parse)."""
    try:
        tree = ast.parse(python, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return python
    try:
        return _Renderer().top(tree)
    except (_Unknown, RecursionError):
        return python


class _Unknown(Exception):
    """A construct this renderer does not draw: the Python text is shown instead."""


class _Renderer:
    def top(self, node) -> str:
        if isinstance(node, ast.Compare):
            out = self.show(node.left)
            for op, right in zip(node.ops, node.comparators):
                out += f" {_RELATIONS[type(op)]} {self.show(right)}"
            return out
        return self.show(node)

    def show(self, node) -> str:
        return self.render(node)[0]

    def wrapped(self, node, need: int) -> str:
        text, prec = self.render(node)
        return f"({text})" if prec < need else text

    def render(self, node) -> tuple[str, int]:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return str(node.value), _ATOM
        if isinstance(node, ast.Name):
            return _NAMES.get(node.id, node.id), _ATOM
        if isinstance(node, ast.Subscript):
            return f"{self.show(node.value)}_{self.wrapped(node.slice, _ATOM)}", _ATOM
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return f"\u2212{self.wrapped(node.operand, _UNARY)}", _UNARY
        if isinstance(node, ast.BinOp):
            return self.binary(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return self.call(node.func.id, node.args)
        raise _Unknown(type(node).__name__)

    def binary(self, node) -> tuple[str, int]:
        op = node.op
        if isinstance(op, ast.Add):
            return f"{self.wrapped(node.left, _SUM)} + {self.wrapped(node.right, _SUM)}", _SUM
        if isinstance(op, ast.Sub):
            return f"{self.wrapped(node.left, _SUM)} \u2212 {self.wrapped(node.right, _PRODUCT)}", _SUM
        if isinstance(op, ast.Mult):
            return f"{self.wrapped(node.left, _PRODUCT)}\u00b7{self.wrapped(node.right, _POWER)}", _PRODUCT
        if isinstance(op, ast.Div):
            return f"{self.wrapped(node.left, _PRODUCT)}/{self.wrapped(node.right, _POWER)}", _PRODUCT
        if isinstance(op, ast.Pow):
            base = self.wrapped(node.left, _ATOM)
            exponent = node.right
            if isinstance(exponent, ast.Constant) and isinstance(exponent.value, int):
                return base + str(exponent.value).translate(_SUPERSCRIPT), _POWER
            if isinstance(exponent, ast.UnaryOp) and isinstance(exponent.op, ast.USub) and isinstance(exponent.operand, ast.Constant) \
                    and isinstance(exponent.operand.value, int):
                return base + f"-{exponent.operand.value}".translate(_SUPERSCRIPT), _POWER
            return f"{base}^{self.wrapped(exponent, _ATOM)}", _POWER
        raise _Unknown(type(op).__name__)

    def call(self, name, args) -> tuple[str, int]:
        if name == "Abs" and len(args) == 1:
            return f"|{self.show(args[0])}|", _ATOM
        if name == "sqrt" and len(args) == 1:
            return f"\u221a{self.wrapped(args[0], _ATOM)}", _POWER
        if name in _REDUCTIONS and len(args) == 2 and isinstance(args[1], ast.Tuple) and len(args[1].elts) == 3:
            index, lo, hi = (self.show(e) for e in args[1].elts)
            return f"{_REDUCTIONS[name]}_{{{index}={lo}..{hi}}} {self.wrapped(args[0], _POWER)}", _PRODUCT
        if name in ("IndexMax", "IndexMin") and len(args) == 3:
            body, index, size = (self.show(a) for a in args)
            return f"{'max' if name == 'IndexMax' else 'min'}_{{{index}=1..{size}}} {self.wrapped(args[0], _POWER)}", _PRODUCT
        if name in ("Max", "Min"):
            return f"{name.lower()}({', '.join(self.show(a) for a in args)})", _ATOM
        return f"{name}({', '.join(self.show(a) for a in args)})", _ATOM
