"""Whatever a user types, ``verify expr`` answers with a claim or one ExpressionError: never another exception.

Statements are drawn from the grammar's own tokens (commands, braces, bars, relations, names,
numbers), so most are malformed in some way: unbalanced, undeclared, missing a relation, a
sum without an index.  Derandomized: the same strings on every run.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier.claims import ClaimDefinitionError
from verifier.frontend import ExpressionError, ExprRequest, build

TOKENS = [r"\frac", r"\sqrt", r"\sum_{i=1}^{n}", r"\sum_i", r"\prod_i", r"\max", r"\min", r"\max_i", r"\exp", r"\ln", r"\log_2",
          r"\tanh", r"\left(", r"\right)", r"\|", "|", "{", "}", "(", ")", "[", "]", "^", "_", "**", "*", "/", "+", "-",
          r"\cdot", r"\le", r"\ge", "<", ">", "=", "<=", ",", "a", "b", "x_i", "x_1", "x", "n", "i", "2", "0.5", "abc", "e",
          r"\alpha", r"\foo", r"\pi", r"\operatorname{softplus}", r"\infty", "\u2264", " "]


@settings(max_examples=300, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=14), st.sampled_from(["a, b > 0", "a in [0, 1]", "x: vector n in [-1, 1]"]),
       st.sampled_from([(), ("a + b = 1",), ("a b = 2",), ("a \\le b",), ("a^2 + b^2 = 2",)]))
def test_any_text_is_a_claim_or_one_line_error(tokens, variables, where):
    statement = " ".join(tokens)
    try:
        build(ExprRequest(statement, (variables, "b"), ("n in 1..3",), where, None, "fuzz"))
    except ExpressionError as exc:
        assert "\n" not in str(exc) and str(exc)
    except ClaimDefinitionError:  # pragma: no cover - a kind refusing its arguments is wrapped by build
        raise AssertionError("a ClaimDefinitionError escaped the front end")


BOUND_PIECES = [",", ">", ">=", "<", "in", "\\in", "[", "]", "(", ")", "0", "1", "-1", "1/2", "\\frac{1}{3}", "\\infty", "-\\infty",
                "0.5", "2", ":", "vector", "simplex", "unit vector", "n", "3", "..", "x"]


@settings(max_examples=300, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(BOUND_PIECES), min_size=1, max_size=7), st.sampled_from(["n in 1..3", "n = 2", "n in [1, 4]", "n in 4..1", "m"]),
       st.sampled_from([(), ("a + b = 1",), ("a b = 1",), ("a \\le b",), ("a > 3",)]))
def test_any_declaration_is_read_or_refused_in_one_line(pieces, dim, where):
    try:
        build(ExprRequest("a + b <= 2", ("a, b " + " ".join(pieces),), (dim,), where, None, "fuzz"))
    except ExpressionError as exc:
        assert "\n" not in str(exc) and str(exc)
