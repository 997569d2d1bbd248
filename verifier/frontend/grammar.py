"""Text to a parse tree, by TeX's rules: one grammar for a paper's LaTeX and for Python syntax.

A hand-written tokenizer reads the text the way TeX does and a Lark LALR grammar then parses
its tokens.  Lark is a parsing library only: the mathematics stays in :mod:`.translate`.

**TeX's rules** (docs/authoring.md section 11 lists them with examples):

* a run of letters is a product of one-letter names (``2xy^2`` is 2·x·y²); a name of several
  letters exists only where it is declared (``--var 'xy'``), and a run that splits two ways
  into declared names is refused with both readings;
* ``^`` and ``_`` take *one* token after them -- a letter, a digit, a command, a braced group
  (``x^2y`` is x²·y, ``u_iv_i`` is u_i·v_i) -- and bind to the one token before them (``ab^2`` is
  a·b², ``(a+b)^2``, ``|x|^2``); ``\\frac`` and ``\\sqrt`` take one-token arguments the same
  way (``\\frac12``, ``\\frac ab``, ``\\sqrt2``);
* ``**`` is Python's power (``x**-1``, ``2**3**2`` = 2⁹).

**Refused, with the readings named** (a reader that guesses is a verifier that checks the
wrong statement): a digit group split by those rules (``x^23`` is x²·3 to TeX, ``x_12``,
``\\frac123``), a number right after a number (``2 3`` is 23 to TeX), ``x2`` (a Python name,
x·2 to TeX), ``1e-3`` (0.001 to Python, 1·e − 3 to TeX), ``x^-1`` and ``x^(a+b)`` (TeX sets
only ``-`` or ``(`` as the exponent), ``x^2^3``, and a ``|`` whose every balanced reading is
not the same (``|x|y|z|``).  The translator refuses the rest (``\\log x y``, ``a/bc``).

Why not sympy's LaTeX parser: its ANTLR backend needs ``antlr4-python3-runtime`` pinned to
4.11 while a fresh resolver installs 4.13, and its Lark backend reads neither a chained
``0 < x \\le y`` nor Python syntax nor ``c^3b^5``, and reports errors in its grammar's terminal
names.  The property test (tests/quality/test_expr_reading.py) compares the two where both read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lark import Lark, Token
from lark.exceptions import UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer

from .errors import ExpressionError, shorten
from .sizes import MAX_LITERAL_DIGITS, MAX_NESTING, MAX_NUMBER_BITS, MAX_TOKENS

GRAMMAR = r"""
start: chain
chain: expr (REL expr)*

?expr: expr ADD term            -> plus
     | expr SUB term            -> minus
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
       | FUNC fscripts product  -> call
       | FUNC fscripts SUB product -> call_neg

fscripts: [LOWSCRIPT sarg] [POW sarg]
        | POW sarg LOWSCRIPT sarg
limits: [LOWSCRIPT lower] [POW upper]
      | POW upper LOWSCRIPT lower
lower: NAME
     | LBRACE NAME RBRACE
     | LBRACE NAME REL expr RBRACE
upper: NAME | NUMBER | LBRACE expr RBRACE

?power: postfix
      | postfix POW sarg                -> sup
      | postfix LOWSCRIPT sarg          -> subscript
      | postfix LOWSCRIPT sarg POW sarg -> subsup
      | postfix POW sarg LOWSCRIPT sarg -> supsub
      | postfix PYPOW pyexponent        -> pypow
?pyexponent: power
           | SUB pyexponent             -> neg
           | ADD pyexponent             -> pos

?sarg: arg
     | INFTY                    -> infty

?postfix: NUMBER                -> number
        | NAME                  -> name
        | CONST                 -> const
        | LPAR expr RPAR        -> paren
        | LBRACE expr RBRACE    -> group
        | LSQB expr RSQB        -> group
        | FRAC arg arg          -> frac
        | SQRT [LSQB expr RSQB] arg -> sqrt
        | MAXMIN LPAR args RPAR -> maxmin
        | MAXMIN SETOPEN args SETCLOSE -> maxmin
        | BAR_OPEN expr BAR_CLOSE -> abs
        | NORM_OPEN expr NORM_CLOSE -> norm
?arg: LBRACE expr RBRACE        -> group
    | NUMBER                    -> number
    | NAME                      -> name
    | CONST                     -> const
    | FRAC arg arg              -> frac
    | SQRT [LSQB expr RSQB] arg -> sqrt
args: expr (COMMA expr)*

%declare REL ADD SUB MUL DIV POW PYPOW LOWSCRIPT BIGOP NAME NUMBER CONST LBRACE RBRACE LPAR RPAR LSQB RSQB
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
#: commands that name what follows in braces: a function, a multi-letter name, or e
NAMING = (r"\operatorname", r"\mathrm", r"\text", r"\textrm", r"\mathit")

# a | after one of these may close a bar; one before one of these may open one
_OPERAND_END = {"NAME", "NUMBER", "CONST", "RPAR", "RBRACE", "RSQB", "BAR_CLOSE", "NORM_CLOSE", "SETCLOSE", "INFTY"}
_OPERAND_START = {"NAME", "NUMBER", "CONST", "LPAR", "LBRACE", "LSQB", "FRAC", "SQRT", "FUNC", "MAXMIN", "BIGOP", "SUB",
                  "ADD", "SETOPEN", "BAR?", "NORM?"}
_PAIRS = {"LPAR": "RPAR", "LBRACE": "RBRACE", "LSQB": "RSQB", "SETOPEN": "SETCLOSE"}
_CLOSERS = {v: k for k, v in _PAIRS.items()}

_RAW = re.compile(r"""
    (?P<space>\s+|\$|&|~)
  | (?P<number>(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?)
  | (?P<letters>[A-Za-z]+)
  | (?P<command>\\[A-Za-z]+)
  | (?P<escaped>\\[|{},;!:\ ])
  | (?P<symbol>\*\*|<=|>=|==|!=|[-+*/^_()\[\]{},|<>=\u2264\u2265\u2260\u00b7\u00d7\u2212\u2016\u03c0])
""", re.VERBOSE)

_SIMPLE = {"+": "ADD", "-": "SUB", "\u2212": "SUB", "*": "MUL", "\u00b7": "MUL", "\u00d7": "MUL", "/": "DIV",
           "^": "POW", "**": "PYPOW", "_": "LOWSCRIPT", "(": "LPAR", ")": "RPAR", "[": "LSQB", "]": "RSQB",
           "{": "LBRACE", "}": "RBRACE", ",": "COMMA"}


@dataclass(frozen=True)
class Vocabulary:
    """The names a statement may use: they decide how a run of letters splits into names.

    ``names`` are the declared names as written (``x``, ``xy``, ``x_1``, ``alpha``, ``n``).
    ``e`` is Euler's number and ``\\pi`` is π unless declared.
    """

    names: frozenset[str] = frozenset()
    #: declared names of several characters that a run of letters may contain (``xy``, ``eps``, ``x2``)
    words: frozenset[str] = field(init=False)

    def __post_init__(self):
        words = frozenset(n for n in self.names if len(n) > 1 and re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", n))
        object.__setattr__(self, "words", words)

    def letter_known(self, letter: str, indices: set[str]) -> bool:
        return letter in self.names or letter == "e" or letter in indices


EMPTY = Vocabulary()


@dataclass(frozen=True)
class Tok:
    type: str
    value: str
    column: int  # 1-based
    length: int = 1  # characters of the text it stands for (\\le is one token of three)


@dataclass(frozen=True)
class Run:
    """A run of letters as typed, for messages about how it was split (``eps`` read as e·p·s)."""

    text: str
    column: int
    pieces: tuple[str, ...]


@dataclass
class _Frame:
    """A command still waiting for one-token arguments (``^``, ``_``, ``\\frac``, ``\\sqrt``), or a
    brace or bracket that shields the arguments inside it from the commands outside."""

    kind: str  # ^ _ frac sqrt brace bracket
    column: int
    waiting: int = 0
    optional: bool = False  # \sqrt before its first token: [n] may come


class _Tokenizer:
    """The text as the grammar's tokens, each with its column, read as TeX reads it."""

    def __init__(self, text: str, vocabulary: Vocabulary):
        self.text = text
        self.vocabulary = vocabulary
        self.out: list[Tok] = []
        self.frames: list[_Frame] = []
        self.force: str | None = None  # "open"/"close" after \left / \right
        self.runs: dict[int, Run] = {}  # column of a NAME piece -> the run it came from
        self.raw: list[tuple[str, str, int]] = []
        self.indices: set[str] = set()
        self.arguments: set[int] = set()  # positions in ``out`` of one-token arguments (set above or below the line)

    def error(self, message, column):
        raise ExpressionError(message, self.text, column)

    # -- the whole text ----------------------------------------------------------------
    def run(self) -> list[Tok]:
        self.raw = list(self._raw())
        self.indices = self._index_letters()
        i = 0
        while i < len(self.raw):
            kind, value, col = self.raw[i]
            i += 1
            if kind == "command":
                i = self._command(value, col, i)
            elif kind == "escaped":
                self._escaped(value, col)
            elif kind == "number":
                i = self._number(value, col, i)
            elif kind == "letters":
                i = self._letters(value, col, i)
            else:
                self._symbol(value, col)
            if value not in (r"\left", r"\right"):  # \left( says nothing about a later bar
                self.force = None
            if len(self.out) > MAX_TOKENS:
                self.error(f"more than {MAX_TOKENS:,} tokens: a statement this long is not one displayed inequality", self.out[-1].column)
        for frame in reversed(self.frames):
            if frame.waiting:
                self._missing_argument(frame, None)
        _check_brackets(self.text, self.out)
        self._resolve_bars()
        return self.out

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

    def _index_letters(self) -> set[str]:
        """Letters bound by ``\\sum_i``, ``\\prod_{i=1}``, ``\\max_i``: known names inside their bodies."""
        out = set()
        for k, (kind, value, _) in enumerate(self.raw):
            if kind == "command" and value in (r"\sum", r"\prod", r"\max", r"\min") and k + 2 < len(self.raw) and self.raw[k + 1][1] == "_":
                nxt = self.raw[k + 2]
                if nxt[0] == "letters":
                    out.add(nxt[1][0])
                elif nxt[1] == "{" and k + 3 < len(self.raw) and self.raw[k + 3][0] == "letters":
                    out.add(self.raw[k + 3][1])
        return out

    def _emit(self, type_, value, col, length=1):
        self.out.append(Tok(type_, value, col, length))

    def _adjacent(self, i: int, col: int, length: int) -> bool:
        """The raw token at ``i`` starts right where the one at ``col`` of ``length`` ends (no space)."""
        return i < len(self.raw) and self.raw[i][2] == col + length

    # -- one-token arguments ---------------------------------------------------------------
    def _waiting(self) -> _Frame | None:
        top = self.frames[-1] if self.frames else None
        return top if top is not None and top.waiting else None

    def _take_argument(self) -> None:
        """The token just read is the argument the innermost command was waiting for."""
        frame = self.frames[-1]
        if frame.kind in ("^", "_"):
            self.arguments.add(len(self.out) - 1)
        frame.waiting -= 1
        frame.optional = False
        if not frame.waiting:
            self.frames.pop()

    def _missing_argument(self, frame: _Frame, what: str | None):
        found = f", found {what}" if what else ""
        if frame.kind == "^":
            self.error(f"'^' has no exponent{found}: write x^{{...}}", frame.column)
        if frame.kind == "_":
            self.error(f"'_' has no subscript{found}: write x_{{...}}", frame.column)
        self.error(f"\\{frame.kind} is missing an argument{found}: write \\frac{{a}}{{b}}, \\sqrt{{x}}", frame.column)

    def _refuse_in_argument(self, frame: _Frame, shown: str, col: int):
        """What TeX would take as a one-token argument that nobody means as one."""
        if frame.kind == "^":
            self.error(f"TeX sets only '{shown}' as the exponent here: write the exponent in braces, x^{{{shown}...}}"
                       " (or Python's x**(...))", col)
        if frame.kind == "_":
            self.error(f"TeX sets only '{shown}' as the subscript here: write the subscript in braces, x_{{...}}", col)
        self.error(f"\\{frame.kind} takes its arguments in braces or as single characters (\\frac{{a}}{{b}}, \\frac12, \\sqrt{{x}})", col)

    # -- numbers -----------------------------------------------------------------------
    def _number(self, value, col, i):
        mantissa, _, exponent = value.lower().partition("e")
        digits = len(mantissa.replace(".", ""))
        if digits > MAX_LITERAL_DIGITS:
            self.error(f"a number of {digits:,} digits: at most {MAX_LITERAL_DIGITS:,} are read", col)
        if exponent:
            self._scientific(value, col, int(exponent), digits)
        frame = self._waiting()
        if frame is not None:
            return self._number_argument(value, col, frame, i)
        if self.out and self.out[-1].type == "NUMBER" and len(self.out) - 1 not in self.arguments:
            prev = self.out[-1]
            self.error(f"a number right after a number ({prev.value} {value}): TeX sets them side by side, as {prev.value}{value}; "
                       f"write {prev.value} \\cdot {value} for the product", col)
        self._emit("NUMBER", value, col, len(value))
        return i

    def _scientific(self, value, col, exponent, digits):
        value = shorten(value, 60)
        letter = "e" if "e" in value else "E"
        if letter == "e" or "E" in self.vocabulary.names:
            mantissa, _, power = value.partition(letter)
            what = "a declared variable" if letter in self.vocabulary.names else "Euler's number"
            tex = f"{mantissa}\u00b7{letter} {power[0]} {power[1:]}" if power[0] in "+-" else f"{mantissa}\u00b7{letter}\u00b7{power}"
            self.error(f"{value} is {mantissa}\u00b710^{power.lstrip('+')} in Python but {tex} to TeX ({letter} being {what}): "
                       f"write {mantissa} \\cdot 10^{{{power.lstrip('+')}}} for the number, or spaces and \\cdot for the other reading", col)
        if abs(exponent) + digits > MAX_NUMBER_BITS / 3.33:  # 10^k has 3.32 k bits
            self.error(f"{value} has {abs(exponent) + digits:,} digits: a number in a statement has at most "
                       f"{int(MAX_NUMBER_BITS / 3.33):,}", col)

    def _number_argument(self, value, col, frame, i):
        """``x^23``: TeX takes the 2 alone; a digit group it splits is refused with both readings."""
        if not value[0].isdigit():
            self._refuse_in_argument(frame, value[0], col)
        k = 0
        while k < len(value) and value[k].isdigit() and self._waiting() is frame:
            self._emit("NUMBER", value[k], col + k)
            self._take_argument()
            k += 1
        if k < len(value):
            self._split_digits(value, col, k, frame)
        return i

    def _split_digits(self, value, col, k, frame):
        head, rest, value = shorten(value[:k]), shorten(value[k:]), shorten(value)
        if frame.kind == "^":
            self.error(f"^{value}: TeX takes only {head} as the exponent and {rest} as a factor after the power: "
                       f"write x^{{{value}}} for the power, or put the factor first", col + k)
        if frame.kind == "_":
            self.error(f"_{value}: TeX takes only {head} as the subscript and {rest} as a factor after it: write x_{{{value}}}", col + k)
        if frame.kind == "frac":
            self.error(f"\\frac{value}: TeX reads \\frac{{{value[0]}}}{{{value[1]}}} and then {rest} as a factor: "
                       "write \\frac{..}{..} with braces, and \\cdot before a factor", col + k)
        self.error(f"\\sqrt{value}: TeX reads \\sqrt{{{head}}} and then {rest} as a factor: write \\sqrt{{{value}}} or {rest}\\sqrt{{{head}}}", col + k)

    # -- letters -------------------------------------------------------------------------
    def _letters(self, value, col, i):
        frame = self._waiting()
        if frame is not None:
            return self._letter_argument(value, col, frame, i)
        return self._run(value, col, i)

    def _letter_argument(self, value, col, frame, i):
        """``x^ab`` is x^a·b and ``\\frac ab`` is a/b: TeX takes one letter per argument."""
        base = self.out[-2] if frame.kind == "_" and len(self.out) >= 2 else None
        for cut in range(len(value), 1, -1):
            word = value[:cut]
            joined = f"{base.value}_{word}" if base is not None and base.type == "NAME" else None
            if word in self.vocabulary.words or joined in self.vocabulary.names:
                what = "subscript" if frame.kind == "_" else "exponent" if frame.kind == "^" else "argument"
                self.error(f"TeX takes only the letter {value[0]} as the {what} here, not the declared name {joined or word}: "
                           f"write {{{word}}} in braces", col)
        k = 0
        while k < len(value) and self._waiting() is frame:
            self._emit("NAME", value[k], col + k)
            self._take_argument()
            k += 1
        if k < len(value):
            return self._run(value[k:], col + k, i)
        return i

    def _run(self, value, col, i):
        """A run of letters outside an argument: a Python call, or a product of names."""
        nxt = self.raw[i] if i < len(self.raw) else None
        if nxt is not None and nxt[1] == "(" and ((value in NAMED_FUNCTIONS and value != "W") or value in ("max", "min")):
            return self._python_call(value, col, i)
        word, digits = value, ""
        if nxt is not None and nxt[0] == "number" and self._adjacent(i, col, len(value)) and nxt[1].isdigit():
            digits = nxt[1]
        pieces = self._split(word + digits, col) if digits else None
        if pieces is not None:  # a declared name with digits: x2, a1
            self._emit_pieces(word + digits, col, pieces)
            return i + 1
        if digits:
            word, digits = shorten(word), shorten(digits)
            self.error(f"{word}{digits} is a name in Python and {word}\u00b7{digits} to TeX: write {word}_{{{digits}}} for an index, "
                       f"{digits}{word} for the product, or declare {word}{digits} as a name", col + len(word))
        pieces = self._split(word, col)
        self._emit_pieces(word, col, pieces if pieces is not None else self._fallback(word))
        return i

    def _python_call(self, value, col, i):
        """``exp(x)``, ``max(a, b)``: a function, unless its letters are also a product of declared names."""
        if all(self.vocabulary.letter_known(ch, self.indices) for ch in value) and value not in self.vocabulary.names:
            spaced = " ".join(value)
            self.error(f"{value}(...) is the function {value} in Python and the product {spaced}\u00b7(...) of declared names to TeX: "
                       f"write \\{value}(...) or \\operatorname{{{value}}}(...) for the function, {spaced} (...) for the product", col)
        if value in ("max", "min"):
            self._emit("MAXMIN", value, col, len(value))
        else:
            self._emit("FUNC", NAMED_FUNCTIONS[value], col, len(value))
        return i

    def _split(self, word: str, col: int) -> tuple[str, ...] | None:
        """The one way ``word`` splits into declared names and one-letter names, None when there is none.

        Two ways are refused with both readings (``xy`` with x, y and xy all declared).  Every
        letter of a one-letter piece must be known (declared, e, or a running index), so that
        declaring ``eps`` does not leave ``eps`` the product e·p·s as well.
        """
        ways = _segmentations(word, self.vocabulary.words, lambda ch: self.vocabulary.letter_known(ch, self.indices))
        if not ways:
            return None
        if len(ways) > 1:
            if len(word) > 40:
                self.error(f"{shorten(word)} splits more than one way into declared names: write \\mathit{{name}} or spaces", col)
            a, b = ways[0], ways[1]
            self.error(f"{word} reads two ways, as {_reading(a)} and as {_reading(b)}: write {_written(a)} or {_written(b)}"
                       " (\\mathit{name} is one name)", col)
        return ways[0]

    def _fallback(self, word: str) -> tuple[str, ...]:
        """A run with an undeclared letter: its declared names where they fit, else letters (the
        translator names the first undeclared one, and how the run was read)."""
        out, k = [], 0
        while k < len(word):
            for j in range(len(word), k + 1, -1):
                if word[k:j] in self.vocabulary.words:
                    out.append(word[k:j])
                    k = j
                    break
            else:
                out.append(word[k])
                k += 1
        return tuple(out)

    def _emit_pieces(self, word, col, pieces):
        run = Run(word, col, tuple(pieces))
        k = 0
        for piece in pieces:
            self._emit("NAME", piece, col + k, len(piece))
            self.runs[col + k] = run
            k += len(piece)

    # -- commands ------------------------------------------------------------------------
    def _command(self, cmd, col, i):
        frame = self._waiting()
        if cmd in LAYOUT:
            return i
        if cmd in (r"\left", r"\right"):
            if frame is not None:
                self._refuse_in_argument(frame, cmd, col)
            self.force = "open" if cmd == r"\left" else "close"
            if i < len(self.raw) and self.raw[i][1] == ".":  # \left. : no delimiter
                self.force = None
                return i + 1
            return i
        if cmd in NAMING:
            return self._naming(cmd, col, i)
        if cmd == r"\pi":
            self._atom("NAME" if "pi" in self.vocabulary.names else "CONST", "pi", col, len(cmd))
        elif cmd[1:] in GREEK:
            self._atom("NAME", cmd[1:], col, len(cmd))
        elif cmd == r"\infty":
            self._atom("INFTY", "oo", col, len(cmd))
        elif cmd in (r"\frac", r"\dfrac", r"\tfrac", r"\cfrac"):
            self._argument_taker("FRAC", cmd, col, _Frame("frac", col, 2))
        elif cmd == r"\sqrt":
            self._argument_taker("SQRT", cmd, col, _Frame("sqrt", col, 1, optional=True))
        elif frame is not None:
            self._refuse_in_argument(frame, cmd, col)
        elif cmd in RELATIONS:
            self._emit("REL", RELATIONS[cmd], col, len(cmd))
        elif cmd in (r"\sum", r"\prod"):
            self._emit("BIGOP", cmd[1:], col, len(cmd))
        elif cmd in (r"\max", r"\min"):
            self._emit("MAXMIN", cmd[1:], col, len(cmd))
        elif cmd in LATEX_FUNCTIONS:
            self._emit("FUNC", LATEX_FUNCTIONS[cmd], col, len(cmd))
        elif cmd in (r"\cdot", r"\times"):
            self._emit("MUL", "*", col, len(cmd))
        elif cmd in (r"\lvert", r"\rvert", r"\vert", r"\mid"):
            self._bar("BAR", col, {r"\lvert": "open", r"\rvert": "close"}.get(cmd), len(cmd))
        elif cmd in (r"\lVert", r"\rVert", r"\Vert"):
            self._bar("NORM", col, {r"\lVert": "open", r"\rVert": "close"}.get(cmd), len(cmd))
        elif cmd in (r"\lbrace", r"\rbrace"):
            self._emit("SETOPEN" if cmd == r"\lbrace" else "SETCLOSE", cmd, col, len(cmd))
        elif cmd in (r"\cdots", r"\ldots", r"\dots"):
            self.error(f"{cmd} (an ellipsis) cannot be read: write the sum as \\sum_{{i=1}}^{{n}} over a vector variable", col)
        elif cmd == r"\mathbb":
            self.error("\\mathbb{R} and its kin say where a variable lives: write them in --var ('x \\in \\mathbb{R}_{>0}')", col)
        else:
            self.error(f"unknown command {cmd}", col)
        return i

    def _atom(self, type_, value, col, length):
        """A token that is one argument on its own (a name, a constant)."""
        waiting = self._waiting() is not None
        self._emit(type_, value, col, length)
        if waiting:
            self._take_argument()

    def _argument_taker(self, type_, cmd, col, frame):
        waiting = self._waiting() is not None
        self._emit(type_, cmd, col, len(cmd))
        if waiting:
            self._take_argument()
        self.frames.append(frame)

    def _naming(self, cmd, col, i):
        """``\\operatorname{softplus}``, ``\\mathit{xy}``, ``\\mathrm{e}``: a function, a declared name, or e."""
        raw = self.raw
        j = i + 1
        while j < len(raw) and raw[j][0] in ("letters", "number") and j - i < 8:
            j += 1
        if not (i < len(raw) and raw[i][1] == "{" and j > i + 1 and j < len(raw) and raw[j][1] == "}" and raw[i + 1][0] == "letters"):
            self.error(f"{cmd} must be followed by a name in braces, such as {cmd}{{softplus}}", col)
        name = "".join(r[1] for r in raw[i + 1:j])
        length = raw[j][2] - col + 1
        if name in self.vocabulary.names or name == "e":
            self._atom("NAME", name, col, length)
        elif self._waiting() is not None:
            self._refuse_in_argument(self._waiting(), cmd, col)
        elif name in NAMED_FUNCTIONS:
            self._emit("FUNC", NAMED_FUNCTIONS[name], col, length)
        elif name in ("max", "min"):
            self._emit("MAXMIN", name, col, length)
        elif False:
            self._atom("NAME", name, col, length)
        else:
            self.error(f"{cmd}{{{name}}} is neither a known function ({', '.join(sorted(NAMED_FUNCTIONS))}) nor a declared name",
                       raw[i + 1][2])
        return j + 1

    def _escaped(self, value, col):
        if value == "\\|":
            self._bar("NORM", col, None, 2)
        elif value == "\\{":
            self._brace_like("SETOPEN", value, col)
        elif value == "\\}":
            self._emit("SETCLOSE", value, col, 2)
        # \, \; \! \: and "\ " only space

    def _brace_like(self, type_, value, col):
        frame = self._waiting()
        if frame is not None:
            self._refuse_in_argument(frame, value, col)
        self._emit(type_, value, col, len(value))

    # -- symbols -------------------------------------------------------------------------
    def _symbol(self, value, col):
        frame = self._waiting()
        if value == "\u03c0":
            self._atom("NAME" if "pi" in self.vocabulary.names else "CONST", "pi", col, 1)
            return
        if value == "{":
            self._emit("LBRACE", value, col)
            if frame is not None:
                self._take_argument()
            self.frames.append(_Frame("brace", col))
            return
        if value == "[" and frame is not None and frame.kind == "sqrt" and frame.optional:
            frame.optional = False
            self._emit("LSQB", value, col)
            self.frames.append(_Frame("bracket", col))
            return
        if frame is not None:
            if value in ("}", ")", "]", ",") or value in RELATIONS:
                self._missing_argument(frame, repr(value))
            self._refuse_in_argument(frame, value, col)
        if value == "}":
            self._close("brace", col)
            self._emit("RBRACE", value, col)
        elif value == "]":
            self._close("bracket", col)
            self._emit("RSQB", value, col)
        elif value in RELATIONS:
            self._emit("REL", RELATIONS[value], col, len(value))
        elif value == "|":
            self._bar("BAR", col, None, 1)
        elif value == "\u2016":
            self._bar("NORM", col, None, 1)
        else:
            type_ = _SIMPLE[value]
            self._emit(type_, value, col, len(value))
            if type_ in ("POW", "LOWSCRIPT"):
                self.frames.append(_Frame(value, col, 1))

    def _close(self, kind, col):
        if self.frames and self.frames[-1].kind == kind:
            self.frames.pop()

    # -- bars ----------------------------------------------------------------------------
    def _bar(self, kind, col, explicit, length):
        frame = self._waiting()
        if frame is not None:
            self._refuse_in_argument(frame, "|", col)
        side = explicit or self.force
        self.force = None
        self._emit(f"{kind}?", side or "", col, length)

    def _resolve_bars(self):
        """Every ``|`` as an opening or a closing bar: the one balanced reading, or refused.

        A bar may close when an operand ends before it, and open when an operand can start
        after it (not on a sign right after an operand); of the balanced assignments there must be exactly one (``|x|y`` has one,
        ``|x|y|z|`` two: |x|·y·|z| and |x·|y|·z|).
        """
        bars = [k for k, tok in enumerate(self.out) if tok.type in ("BAR?", "NORM?")]
        if not bars:
            return
        if len(bars) > 200:
            self.error("more than 200 bars: write \\left| ... \\right| (a statement this long is not one inequality)", self.out[bars[200]].column)
        # the stack holds open bars and brackets: a bar pair never crosses a bracket ({|x}|)
        states: dict[tuple, list[tuple]] = {(): [()]}
        for k in range(len(self.out)):
            tok = self.out[k]
            if tok.type in _PAIRS:
                states = {stack + (tok.type,): assigns for stack, assigns in states.items()}
                continue
            if tok.type in _CLOSERS:
                states = {stack[:-1]: assigns for stack, assigns in states.items() if stack and stack[-1] == _CLOSERS[tok.type]}
                if not states:
                    break
                continue
            if tok.type in ("REL", "COMMA"):  # a bar pair never holds a relation, nor a comma outside brackets
                states = {stack: assigns for stack, assigns in states.items() if not stack or stack[-1] not in ("BAR", "NORM")}
                continue
            if tok.type not in ("BAR?", "NORM?"):
                continue
            kind = tok.type[:-1]
            nxt = self.out[k + 1].type if k + 1 < len(self.out) else None
            new: dict[tuple, list[tuple]] = {}
            for stack, assigns in states.items():
                for assign in assigns:
                    prev = self._resolved(k - 1, assign, bars)
                    # after an operand a bar that opens multiplies (y|x|); one that opens on a sign there
                    # (c|-a|) is what nobody writes, and counting it would make |x - c| - a|x - c| ambiguous
                    signed = prev in _OPERAND_END and nxt in ("SUB", "ADD")
                    if tok.value != "close" and nxt in _OPERAND_START and (not signed or tok.value == "open"):
                        _add(new, stack + (kind,), assign + ("open",))
                    if tok.value != "open" and stack and stack[-1] == kind and prev in _OPERAND_END:
                        _add(new, stack[:-1], assign + ("close",))
            if len(new) > 10_000:
                self.error("too many bars to read: write \\left| ... \\right| (and \\left\\| ... \\right\\|)", tok.column)
            states = new
        readings = states.get((), [])
        if not readings:
            self._unbalanced_bars(bars)
            return
        if len(readings) > 1:
            a, b = (self._bars_text(bars, r) for r in readings[:2])
            if len(a) > 160:
                self.error("the bars read more than one way: write \\left| and \\right| to say which", self.out[bars[0]].column)
            self.error(f"the bars read two ways, as {a} and as {b}: write \\left| and \\right| to say which", self.out[bars[0]].column)
        for k, side in zip(bars, readings[0]):
            tok = self.out[k]
            self.out[k] = Tok(f"{tok.type[:-1]}_{side.upper()}", "|", tok.column, tok.length)

    def _resolved(self, k, assign, bars):
        if k < 0:
            return None
        tok = self.out[k]
        if tok.type in ("BAR?", "NORM?"):
            side = assign[bars.index(k)]
            return f"{tok.type[:-1]}_{side.upper()}"
        return tok.type

    def _bars_text(self, bars, assign) -> str:
        """The text with each bar written \\left| or \\right| as ``assign`` reads it."""
        out, last = [], 0
        for k, side in zip(bars, assign):
            tok = self.out[k]
            start = tok.column - 1
            out.append(self.text[last:start])
            shape = "|" if tok.type == "BAR?" else "\\|"
            out.append(shape if tok.value else ("\\left" if side == "open" else "\\right") + shape)
            last = start + tok.length
        out.append(self.text[last:])
        return "".join(out).strip()

    def _unbalanced_bars(self, bars):
        """No balanced reading: the first bar that opens nothing or never closes, read left to right."""
        stack: list[Tok] = []
        for k in bars:
            tok = self.out[k]
            kind = tok.type[:-1]
            prev = self.out[k - 1].type if k else None
            closes = tok.value == "close" or (tok.value != "open" and stack and stack[-1].type[:-1] == kind and
                                             (prev in _OPERAND_END or prev in ("BAR?", "NORM?")))
            if closes:
                if not stack or stack[-1].type[:-1] != kind:
                    self.error("unbalanced '|': it closes an absolute value or norm that was never opened", tok.column)
                stack.pop()
            else:
                stack.append(tok)
        if stack:
            tok = stack[-1]
            self.error(f"unbalanced '{'|' if tok.type == 'BAR?' else '||'}': it opens an absolute value or norm that never closes", tok.column)
        self.error("these bars have no reading as absolute values or norms: write \\left| ... \\right|", self.out[bars[0]].column)


def _add(states, stack, assign):
    seen = states.setdefault(stack, [])
    if len(seen) < 2:
        seen.append(assign)


def _segmentations(word: str, words: frozenset[str], known) -> list[tuple[str, ...]]:
    """At most two ways to write ``word`` as declared words and known single letters.

    Counted from the end (``count[k]``: ways to write ``word[k:]``, capped at 2), without
    recursion and without building every way: a run of letters may be long.
    """
    longest = max((len(w) for w in words), default=1)
    n = len(word)
    count = [0] * (n + 1)
    count[n] = 1
    nexts: list[list[int]] = [[] for _ in range(n + 1)]
    for k in range(n - 1, -1, -1):
        for j in range(min(n, k + longest), k, -1):
            piece = word[k:j]
            if count[j] and ((j - k == 1 and piece.isalpha() and known(piece)) or (j - k > 1 and piece in words)):
                nexts[k].append(j)
                count[k] = min(2, count[k] + count[j])
    if not count[0]:
        return []

    def follow(k, path):
        while k < n:
            j = nexts[k][0]
            path.append(word[k:j])
            k = j
        return tuple(path)

    first = follow(0, [])
    if count[0] == 1:
        return [first]
    k, path = 0, []
    while True:  # the first place along the first way where another way branches off
        if len(nexts[k]) > 1:
            j = nexts[k][1]
            return [first, follow(j, path + [word[k:j]])]
        j = nexts[k][0]
        path.append(word[k:j])
        k = j


def _reading(pieces) -> str:
    return "\u00b7".join(pieces) if len(pieces) > 1 else f"the name {pieces[0]}"


def _written(pieces) -> str:
    return " ".join(p if len(p) == 1 else f"\\mathit{{{p}}}" for p in pieces)


class _TokenStream(Lexer):
    """Hands the tokenizer's tokens to Lark (the text was tokenized before the parse)."""

    def __init__(self, lexer_conf):
        pass

    def lex(self, tokens):
        for tok in tokens:
            yield Token(tok.type, tok.value, start_pos=tok.column - 1, line=1, column=tok.column,
                        end_pos=tok.column - 1 + tok.length)


_PARSER = Lark(GRAMMAR, parser="lalr", lexer=_TokenStream, propagate_positions=True, maybe_placeholders=True)


@dataclass(frozen=True)
class Parsed:
    """A parse tree and how the runs of letters in it were split (for messages)."""

    tree: object
    runs: dict


def tokenize(text: str, vocabulary: Vocabulary = EMPTY) -> list[Tok]:
    return _Tokenizer(text, vocabulary).run()


def parse(text: str, vocabulary: Vocabulary = EMPTY) -> Parsed:
    """The parse tree of a statement or constraint (a ``chain`` of expressions and relations)."""
    if not text.strip():
        raise ExpressionError("empty statement", text, None)
    tokenizer = _Tokenizer(text, vocabulary)
    tokens = tokenizer.run()
    try:
        tree = _PARSER.parse(_Tokens(tokens))
    except UnexpectedEOF:
        raise ExpressionError("the text ends too early", text, len(text)) from None
    except UnexpectedToken as exc:
        tok = exc.token
        if tok.type == "$END":
            raise ExpressionError("the text ends too early (an operand is missing)", text, len(text) + 1) from None
        shown = shorten(text[tok.start_pos:tok.end_pos] or tok.value)  # as typed: \\infty, not its value
        if tok.type in ("POW", "LOWSCRIPT", "PYPOW"):
            raise ExpressionError(f"unexpected {shown!r}: a power or subscript of a power needs braces (x^{{2^3}}, (x^2)^3)",
                                  text, tok.column) from None
        raise ExpressionError(f"unexpected {shown!r}", text, tok.column) from None
    except UnexpectedInput as exc:  # pragma: no cover - the tokens come from the tokenizer
        raise ExpressionError("cannot read this", text, getattr(exc, "column", None)) from None
    _check_nesting(text, tree)
    return Parsed(tree, tokenizer.runs)


class _Tokens(str):
    """The token list travelling through Lark as its 'text' (Lark hands it to the lexer as is)."""

    def __new__(cls, tokens):
        self = super().__new__(cls, "")
        self.tokens = tokens
        return self

    def __iter__(self):
        return iter(self.tokens)


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


#: rules that chain left to right (a sum of many terms is long, not deep): they add no depth to themselves
CHAINS = {"plus": "sum", "minus": "sum", "mul": "product", "div": "product", "imul": "product"}


def _check_nesting(text, tree):
    """Constructs nested deeper than MAX_NESTING, refused at the column of the deepest (no recursion here)."""
    stack = [(tree, 0, None)]
    while stack:
        node, depth, parent_chain = stack.pop()
        chain = CHAINS.get(getattr(node, "data", None))
        here = depth if chain is not None and chain == parent_chain else depth + 1
        if here > MAX_NESTING:
            meta = node.meta
            raise ExpressionError(f"nested more than {MAX_NESTING} levels deep", text, None if meta.empty else meta.column)
        for child in node.children:
            if child is not None and not isinstance(child, Token):
                stack.append((child, here, chain))
