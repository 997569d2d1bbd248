"""Text to a parse tree: one grammar for a paper's LaTeX and for Python syntax.

A hand-written tokenizer reads the text (it knows every LaTeX command the front end accepts,
so an unknown ``\\foo`` is refused at its column, and it tells an opening ``|`` from a closing
one); a Lark LALR grammar then parses the tokens.  Lark is a parsing library only: the
mathematics stays in :mod:`verifier.frontend.translate`.

Why not sympy's LaTeX parser: its ANTLR backend needs ``antlr4-python3-runtime`` pinned to
4.11 while a fresh resolver installs 4.13 (sympy refuses to start with it), and its Lark
backend reads neither a chained ``0 < x \\le y`` nor Python syntax, parses ``\\tanh`` three
ways, and reports errors in its grammar's terminal names.  Here the grammar is short, its
shift/reduce choices are the usual ones (a product, a power and the body of ``\\sum`` extend
as far as they can), and an error points at the column a user typed.

Conventions (also in docs/authoring.md):

* implicit multiplication: ``2ab``, ``(a+b)(b+c)``, ``\\frac{1}{2} x``; a run of letters that is
  not a declared name is split into declared names later (``abc`` = a*b*c);
* ``1e-3`` is a number (Python's notation: ``2e-3`` is not 2e - 3);
* ``x^23`` is ``x^2 \\cdot 3`` as in TeX (one character after ``^``, ``\\frac12``, ``\\sqrt2``);
  ``x**23`` is Python's power;
* the body of ``\\sum``, ``\\prod`` and ``\\max_i`` is the product that follows, ``\\cdot`` and
  ``/`` included, up to the next ``+``, ``-`` or relation;
* ``\\ln x^2`` is ``\\ln(x^2)``; ``\\ln(x)^2`` is ``(\\ln x)^2``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lark import Lark, Token
from lark.exceptions import UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer

from .errors import ExpressionError

GRAMMAR = r"""
start: chain
chain: expr (REL expr)*

?expr: expr ADD term            -> add
     | expr SUB term            -> sub
     | term
?term: term MUL signed          -> mul
     | term DIV signed          -> div
     | signed
?signed: SUB signed             -> neg
       | ADD signed             -> pos
       | product
?product: factor
        | product factor        -> imul
?factor: power
       | BIGOP limits term      -> bigop
       | MAXMIN LOWSCRIPT lower term -> reduce_maxmin

limits: [LOWSCRIPT lower] [POW upper]
      | POW upper LOWSCRIPT lower
lower: NAME
     | LBRACE NAME RBRACE
     | LBRACE NAME REL expr RBRACE
upper: NAME | NUMBER | LBRACE expr RBRACE

?power: postfix
      | postfix POW exponent    -> pow
?exponent: postfix
         | SUB exponent         -> neg
         | postfix POW exponent -> pow

?postfix: paren | plain
paren: LPAR expr RPAR
?plain: NUMBER                  -> number
      | NAME                    -> name
      | NAME LOWSCRIPT sub      -> subscripted
      | LBRACE expr RBRACE      -> group
      | LSQB expr RSQB          -> group
      | FRAC arg arg            -> frac
      | SQRT [LSQB expr RSQB] arg -> sqrt
      | call
      | MAXMIN LPAR args RPAR   -> maxmin
      | MAXMIN SETOPEN args SETCLOSE -> maxmin
      | BAR_OPEN expr BAR_CLOSE -> abs
      | NORM_OPEN expr NORM_CLOSE [LOWSCRIPT normsub] -> norm
sub: NUMBER | NAME | LBRACE expr RBRACE
normsub: NUMBER | INFTY | LBRACE (NUMBER | INFTY) RBRACE
arg: LBRACE expr RBRACE | NUMBER | NAME
call: FUNC [LOWSCRIPT sub] [POW fpow] LPAR args RPAR
    | FUNC [LOWSCRIPT sub] [POW fpow] plain_power
fpow: NUMBER | LBRACE expr RBRACE
?plain_power: plain
            | plain POW exponent -> pow
args: expr (COMMA expr)*

%declare REL ADD SUB MUL DIV POW LOWSCRIPT BIGOP NAME NUMBER LBRACE RBRACE LPAR RPAR LSQB RSQB
%declare FRAC SQRT FUNC MAXMIN SETOPEN SETCLOSE BAR_OPEN BAR_CLOSE NORM_OPEN NORM_CLOSE INFTY COMMA
"""

#: ``\command`` -> (token type, value); the value of a relation is its Python spelling
RELATIONS = {
    "<=": "<=", ">=": ">=", "<": "<", ">": ">", "=": "==", "==": "==", "!=": "!=",
    "\u2264": "<=", "\u2265": ">=", "\u2260": "!=",
    r"\le": "<=", r"\leq": "<=", r"\leqslant": "<=", r"\ge": ">=", r"\geq": ">=", r"\geqslant": ">=",
    r"\lt": "<", r"\gt": ">", r"\ne": "!=", r"\neq": "!=",
}
#: LaTeX functions -> the front end's function names (those of the ``ctx`` table where one exists)
LATEX_FUNCTIONS = {
    r"\exp": "exp", r"\ln": "log", r"\log": "log", r"\tanh": "tanh", r"\sin": "sin", r"\cos": "cos",
}
#: names allowed after ``\operatorname{...}`` / ``\mathrm{...}``, and as Python calls ``name(...)``
NAMED_FUNCTIONS = {
    "exp": "exp", "log": "log", "ln": "log", "sqrt": "sqrt", "abs": "abs", "tanh": "tanh",
    "sigmoid": "sigmoid", "softplus": "softplus", "erf": "erf", "sin": "sin", "cos": "cos",
    "log1p": "log1p", "expm1": "expm1", "lambertw": "lambertw", "W": "lambertw",
}
GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi "
         "rho varrho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma "
         "Phi Psi Omega").split()
#: commands that only space or size what follows: dropped
LAYOUT = {r"\displaystyle", r"\textstyle", r"\quad", r"\qquad", r"\big", r"\Big", r"\bigg", r"\Bigg",
          r"\bigl", r"\bigr", r"\Bigl", r"\Bigr", r"\biggl", r"\biggr", r"\Biggl", r"\Biggr", r"\limits"}

# a token ends an operand when the next | closes, not opens, a bar
_OPERAND_END = {"NAME", "NUMBER", "RPAR", "RBRACE", "RSQB", "BAR_CLOSE", "NORM_CLOSE", "SETCLOSE", "INFTY"}

_RAW = re.compile(r"""
    (?P<space>\s+|\$|&)
  | (?P<number>(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?)
  | (?P<name>[A-Za-z][A-Za-z0-9]*)
  | (?P<command>\\[A-Za-z]+)
  | (?P<escaped>\\[|{},;!:\ ])
  | (?P<symbol>\*\*|<=|>=|==|!=|[-+*/^_()\[\]{},|<>=\u2264\u2265\u2260\u00b7\u00d7\u2212\u2016])
""", re.VERBOSE)


@dataclass(frozen=True)
class Tok:
    type: str
    value: str
    column: int  # 1-based
    length: int = 1  # characters of the text it stands for (\\le is one token of three)


class _Tokenizer:
    """The text as the grammar's tokens, each with its column; refuses what it does not know."""

    SIMPLE = {"+": "ADD", "-": "SUB", "\u2212": "SUB", "*": "MUL", "\u00b7": "MUL", "\u00d7": "MUL", "/": "DIV",
              "^": "POW", "**": "POW", "_": "LOWSCRIPT", "(": "LPAR", ")": "RPAR", "[": "LSQB", "]": "RSQB",
              "{": "LBRACE", "}": "RBRACE", ",": "COMMA"}

    def __init__(self, text: str):
        self.text = text
        self.out: list[Tok] = []
        self.bars: list[str] = []  # the open | and \| bars, innermost last
        self.force: str | None = None  # "open"/"close" after \left / \right

    def error(self, message, column):
        raise ExpressionError(message, self.text, column)

    def run(self) -> list[Tok]:
        raw = list(self._raw())
        i = 0
        while i < len(raw):
            kind, value, col = raw[i]
            i += 1
            before = len(self.out)
            if kind == "command":
                i = self._command(value, col, raw, i)
            elif kind == "escaped":
                self._escaped(value, col)
            elif kind == "number":
                self.out.append(Tok("NUMBER", value, col))
            elif kind == "name":
                self._name(value, col, raw, i)
            else:
                self._symbol(value, col)
            if len(self.out) == before + 1:
                self.out[-1] = Tok(self.out[-1].type, self.out[-1].value, col, len(value))
            self._single_characters()
        if self.bars:
            self.error(f"unbalanced '{'|' if self.bars[-1] == 'BAR' else '||'}': it opens an absolute value or norm that never closes", self._last_open_bar())
        return self.out

    def _last_open_bar(self):
        for tok in reversed(self.out):
            if tok.type in ("BAR_OPEN", "NORM_OPEN"):
                return tok.column
        return None

    def _raw(self):
        pos = 0
        while pos < len(self.text):
            m = _RAW.match(self.text, pos)
            if m is None:
                self.error(f"unexpected character {self.text[pos]!r}", pos + 1)
            kind = m.lastgroup
            if kind != "space":
                yield kind, m.group(), pos + 1
            pos = m.end()

    def _command(self, cmd, col, raw, i):
        if cmd in RELATIONS:
            self.out.append(Tok("REL", RELATIONS[cmd], col))
        elif cmd in (r"\frac", r"\dfrac", r"\tfrac", r"\cfrac"):
            self.out.append(Tok("FRAC", cmd, col))
        elif cmd == r"\sqrt":
            self.out.append(Tok("SQRT", cmd, col))
        elif cmd in (r"\sum", r"\prod"):
            self.out.append(Tok("BIGOP", cmd[1:], col))
        elif cmd in (r"\max", r"\min"):
            self.out.append(Tok("MAXMIN", cmd[1:], col))
        elif cmd in LATEX_FUNCTIONS:
            self.out.append(Tok("FUNC", LATEX_FUNCTIONS[cmd], col))
        elif cmd in (r"\operatorname", r"\mathrm", r"\text", r"\textrm", r"\mathit"):
            return self._named_function(cmd, col, raw, i)
        elif cmd in (r"\cdot", r"\times"):
            self.out.append(Tok("MUL", "*", col))
        elif cmd in (r"\left", r"\right"):
            self.force = "open" if cmd == r"\left" else "close"
            if i < len(raw) and raw[i][1] == ".":  # \left. : no delimiter
                return i + 1
        elif cmd in (r"\lvert", r"\rvert", r"\vert", r"\mid"):
            self._bar("BAR", col, {"\\lvert": "open", "\\rvert": "close"}.get(cmd))
        elif cmd in (r"\lVert", r"\rVert", r"\Vert"):
            self._bar("NORM", col, {"\\lVert": "open", "\\rVert": "close"}.get(cmd))
        elif cmd in (r"\lbrace", r"\rbrace"):
            self.out.append(Tok("SETOPEN" if cmd == r"\lbrace" else "SETCLOSE", cmd, col))
        elif cmd == r"\infty":
            self.out.append(Tok("INFTY", "oo", col))
        elif cmd[1:] in GREEK or cmd == r"\pi":
            self.out.append(Tok("NAME", cmd[1:], col))
        elif cmd in LAYOUT:
            pass
        elif cmd in (r"\cdots", r"\ldots", r"\dots"):
            self.error(f"{cmd} (an ellipsis) cannot be read: write the sum as \\sum_{{i=1}}^{{n}} over a vector variable", col)
        else:
            self.error(f"unknown command {cmd}", col)
        return i

    def _named_function(self, cmd, col, raw, i):
        # \operatorname{softplus}: the braces and one name, then a function token
        if i + 2 < len(raw) and raw[i][1] == "{" and raw[i + 1][0] == "name" and raw[i + 2][1] == "}":
            name = raw[i + 1][1]
            if name in NAMED_FUNCTIONS:
                self.out.append(Tok("FUNC", NAMED_FUNCTIONS[name], col))
                return i + 3
            if name in ("max", "min"):
                self.out.append(Tok("MAXMIN", name, col))
                return i + 3
            self.error(f"unknown function {cmd}{{{name}}}; known: {', '.join(sorted(NAMED_FUNCTIONS))}", raw[i + 1][2])
        self.error(f"{cmd} must be followed by a function name in braces, such as {cmd}{{softplus}}", col)

    def _escaped(self, value, col):
        if value == "\\|":
            self._bar("NORM", col, None)
        elif value == "\\{":
            self.out.append(Tok("SETOPEN", value, col))
        elif value == "\\}":
            self.out.append(Tok("SETCLOSE", value, col))
        # \, \; \! \: and "\ " only space

    def _name(self, value, col, raw, i):
        # a Python call max(...), exp(...): a function name followed by "("
        if i < len(raw) and raw[i][1] == "(":
            if value in ("max", "min"):
                self.out.append(Tok("MAXMIN", value, col))
                return
            if value in NAMED_FUNCTIONS and value != "W":
                self.out.append(Tok("FUNC", NAMED_FUNCTIONS[value], col))
                return
        self.out.append(Tok("NAME", value, col))

    def _symbol(self, value, col):
        if value in RELATIONS:
            self.out.append(Tok("REL", RELATIONS[value], col))
        elif value == "|":
            self._bar("BAR", col, None)
        elif value == "\u2016":
            self._bar("NORM", col, None)
        else:
            self.out.append(Tok(self.SIMPLE[value], value, col))

    def _bar(self, kind, col, explicit):
        side = explicit or self.force
        self.force = None
        if side is None:
            prev = self.out[-1].type if self.out else None
            side = "close" if self.bars and self.bars[-1] == kind and prev in _OPERAND_END else "open"
        if side == "open":
            self.bars.append(kind)
            self.out.append(Tok(f"{kind}_OPEN", "|", col))
        else:
            if not self.bars or self.bars[-1] != kind:
                self.error("unbalanced '|': it closes an absolute value or norm that was never opened", col)
            self.bars.pop()
            self.out.append(Tok(f"{kind}_CLOSE", "|", col))

    def _single_characters(self):
        """TeX reads one character as the argument of \\frac, \\sqrt and ``^`` without braces
        (``\\frac12``, ``x^2y``): split the number or name that follows them."""
        out = self.out
        if len(out) < 2 or out[-1].type not in ("NUMBER", "NAME") or len(out[-1].value) < 2:
            return
        before = out[-2]
        takes = before.type in ("FRAC", "SQRT") or (before.type == "POW" and before.value == "^")
        takes = takes or (len(out) >= 3 and out[-3].type == "FRAC" and before.type in ("NUMBER", "NAME") and len(before.value) == 1)
        if not takes or out[-1].value.startswith("."):
            return
        tok = out.pop()
        for k, ch in enumerate(tok.value):
            out.append(Tok("NUMBER" if ch.isdigit() else "NAME", ch, tok.column + k))


class _TokenStream(Lexer):
    """Hands the tokenizer's tokens to Lark (the text was tokenized before the parse)."""

    def __init__(self, lexer_conf):
        pass

    def lex(self, tokens):
        for tok in tokens:
            yield Token(tok.type, tok.value, start_pos=tok.column - 1, line=1, column=tok.column,
                        end_pos=tok.column - 1 + tok.length)


_PARSER = Lark(GRAMMAR, parser="lalr", lexer=_TokenStream, propagate_positions=True, maybe_placeholders=True)

_TOKEN_TEXT = {"REL": "a relation", "RBRACE": "'}'", "RPAR": "')'", "LBRACE": "'{'", "LPAR": "'('", "RSQB": "']'",
               "BAR_CLOSE": "a closing '|'", "NORM_CLOSE": "a closing '\\|'", "SETCLOSE": "'\\}'", "$END": "the end"}


def tokenize(text: str) -> list[Tok]:
    return _Tokenizer(text).run()


def parse(text: str):
    """The parse tree of a statement or constraint (a ``chain`` of expressions and relations)."""
    if not text.strip():
        raise ExpressionError("empty statement", text, None)
    tokens = tokenize(text)
    _check_brackets(text, tokens)
    try:
        return _PARSER.parse(_Tokens(tokens))
    except UnexpectedEOF as exc:
        raise ExpressionError("the text ends too early", text, len(text)) from None
    except UnexpectedToken as exc:
        tok = exc.token
        if tok.type == "$END":
            raise ExpressionError("the text ends too early (an operand is missing)", text, len(text) + 1) from None
        shown = text[tok.start_pos:tok.end_pos] or tok.value  # as typed: \\infty, not its value
        raise ExpressionError(f"unexpected {shown!r}", text, tok.column) from None
    except UnexpectedInput as exc:  # pragma: no cover - the tokens come from the tokenizer
        raise ExpressionError("cannot read this", text, getattr(exc, "column", None)) from None


class _Tokens(str):
    """The token list travelling through Lark as its 'text' (Lark hands it to the lexer as is)."""

    def __new__(cls, tokens):
        self = super().__new__(cls, "")
        self.tokens = tokens
        return self

    def __iter__(self):
        return iter(self.tokens)


_PAIRS = {"LPAR": "RPAR", "LBRACE": "RBRACE", "LSQB": "RSQB", "SETOPEN": "SETCLOSE"}
_CLOSERS = {v: k for k, v in _PAIRS.items()}
_SHOW = {"LPAR": "(", "RPAR": ")", "LBRACE": "{", "RBRACE": "}", "LSQB": "[", "RSQB": "]", "SETOPEN": "\\{", "SETCLOSE": "\\}"}


def _check_brackets(text, tokens):
    """Unbalanced braces and parentheses, named at the column of the one left alone."""
    stack: list[Tok] = []
    for tok in tokens:
        if tok.type in _PAIRS:
            stack.append(tok)
        elif tok.type in _CLOSERS:
            if not stack:
                raise ExpressionError(f"unbalanced '{_SHOW[tok.type]}': it closes nothing", text, tok.column)
            top = stack.pop()
            if _PAIRS[top.type] != tok.type:
                raise ExpressionError(f"unbalanced '{_SHOW[top.type]}': closed by '{_SHOW[tok.type]}' at column {tok.column}", text, top.column)
    if stack:
        top = stack[-1]
        raise ExpressionError(f"unbalanced '{_SHOW[top.type]}': no matching '{_SHOW[_PAIRS[top.type]]}'", text, top.column)
