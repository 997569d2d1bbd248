"""How large a statement may make what it computes, checked before it is computed.

A statement is untrusted text: ``10**10**10`` or ``(a+b+c+d+e+f)^{60}`` costs nothing to type
and minutes and gigabytes to evaluate or expand.  Every number, power, root, range and
expansion is measured first; past these sizes it is one usage error naming the term.  The
sizes are far beyond what a displayed inequality of a paper writes.
"""

from __future__ import annotations

import math

import sympy

#: digits of a number typed in the statement (Python reads at most 4,300 into an int)
MAX_LITERAL_DIGITS = 1000
#: bits of the numerator or denominator of a constant the statement computes (``2^{1000}``);
#: the printed claim writes it in decimal, and Python prints at most 4,300 digits
MAX_NUMBER_BITS = 10_000
#: an integer exponent or root degree applied to a variable (``x^{1000}``, ``\\sqrt[50]{x}``):
#: an exact certificate raises a rational of a hundred bits to it
MAX_EXPONENT = 1000
#: the range of a sum or product over a number (``\\sum_{i=1}^{100}``): every context loops over it
MAX_RANGE = 1000
#: terms of an expansion the front end asks sympy for (an equality to solve, a homogeneity test)
MAX_EXPANSION_TERMS = 20_000
#: tokens of one statement, constraint or bound
MAX_TOKENS = 5000
#: nested constructs (parentheses, braces, fractions, roots, powers, signs) inside one another
MAX_NESTING = 100


def number_bits(q: sympy.Rational) -> int:
    return max(abs(int(q.p)).bit_length(), int(q.q).bit_length())


def power_bits(base: sympy.Rational, exponent: sympy.Rational) -> float:
    """Bits of the numerator or denominator of ``base ** exponent`` (a rational base), before it is computed."""
    return abs(float(exponent)) * number_bits(base) if exponent != 0 else 1


def expansion_terms(expr: sympy.Expr) -> int:
    """An upper bound on the terms of ``sympy.expand(expr)``, computed without expanding.

    A sum has at most the terms of its summands, a product the product of theirs, a power
    ``s^k`` of a sum of ``t`` terms at most C(k + t - 1, t - 1) (the monomials of degree k in t
    symbols); anything else counts as one term.
    """
    if expr.is_Add:
        return sum(expansion_terms(a) for a in expr.args)
    if expr.is_Mul:
        return math.prod(expansion_terms(a) for a in expr.args)
    if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
        t = expansion_terms(expr.base)
        k = int(expr.exp)
        if t == 1:
            return 1
        if k > 10**6:  # far past any limit: the binomial itself would be slow
            return 10**100
        return math.comb(k + t - 1, t - 1)
    return 1


def largest_expansion(expr: sympy.Expr) -> tuple[int, sympy.Expr]:
    """The expansion's size bound and the subterm responsible for most of it (named in an error)."""
    total = expansion_terms(expr)
    worst, worst_terms = expr, total
    stack = [expr]
    while stack:
        node = stack.pop()
        for arg in node.args:
            terms = expansion_terms(arg)
            if terms > MAX_EXPANSION_TERMS and terms <= worst_terms:
                worst, worst_terms = arg, terms
            stack.append(arg)
    return total, worst
