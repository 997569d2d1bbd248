"""What a pack names, made safe for each report format: a report of someone else's pack runs no
script and includes no file when it is opened.

A claim's ``latex`` is the one field a report passes on as markup, so it is read first: only a
whitelisted subset of math commands and environments is typeset (every one defined by amsmath
and amssymb, none that reads or writes a file, defines a macro or changes a category code), and
TeX's own escape hatches (``%``, ``#``, ``$``, ``^^``) are refused.  A formula outside the
subset is shown as its source, escaped, with the reason.  The MathML that ``latex2mathml``
makes of an accepted formula is sanitised again by ``nh3`` (ammonia) against MathML's elements
and presentational attributes, since the converter copies ``\\text{...}`` into the page as it
is.  Plain text goes through each format's escaping: HTML entities, LaTeX's specials, and for
Markdown the characters that would start HTML, a link, math or a new block.
"""

from __future__ import annotations

import re

import nh3

from ..errors import VerifierError

MAX_LATEX_CHARS = 5_000  # characters of one formula a report typesets

_GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi rho varrho "
          "sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega")
_SYMBOLS = ("le leq ge geq ne neq approx sim simeq cong equiv propto ll gg subset subseteq supset supseteq in notin ni cup cap "
            "setminus smallsetminus emptyset varnothing forall exists nexists neg lnot land lor wedge vee implies iff impliedby to "
            "mapsto rightarrow leftarrow Rightarrow Leftarrow Leftrightarrow leftrightarrow longrightarrow longmapsto uparrow "
            "downarrow times cdot cdotp cdots ldots dots ddots vdots div pm mp circ bullet star ast oplus otimes odot partial nabla "
            "infty ell hbar prime top perp parallel mid nmid langle rangle lceil rceil lfloor rfloor lvert rvert lVert rVert vert "
            "Vert colon dagger not")
_OPERATORS = ("sum prod int iint oint bigcup bigcap coprod lim limsup liminf sup inf max min arg det exp log ln sin cos tan sinh "
              "cosh tanh sec csc cot arcsin arccos arctan deg dim ker hom Pr gcd lcm bmod pmod")
_STRUCTURES = ("frac dfrac tfrac sqrt binom dbinom tbinom overline underline hat widehat tilde widetilde bar vec dot ddot check "
               "breve acute grave overbrace underbrace overset underset stackrel boldsymbol mathbf mathrm mathit mathsf mathtt "
               "mathcal mathbb mathfrak operatorname text textrm textit textbf mbox left right middle big Big bigg Bigg bigl "
               "bigr Bigl Bigr biggl biggr quad qquad displaystyle textstyle scriptstyle limits nolimits begin end")
#: the math commands a report typesets: every one defined by amsmath/amssymb, none touches a file or a macro
MATH_COMMANDS = frozenset(" ".join((_GREEK, _SYMBOLS, _OPERATORS, _STRUCTURES)).split())
#: environments ``\begin{...}`` may open
MATH_ENVIRONMENTS = frozenset("matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix cases aligned gathered array".split())
#: one-character control symbols: spacing, escaped specials, a matrix row's end
_CONTROL_SYMBOLS = frozenset(",;:! {}|&_%#$\\")

#: groups, environments and \left...\right pairs open at once (TeX stops at 255 grouping levels,
#: with an error that ends the document; a paper's formula nests a handful)
MAX_LATEX_NESTING = 32
#: commands that must be given arguments, and how many (the optional ``[n]`` of ``\sqrt`` aside)
_ARGUMENTS = {**dict.fromkeys("frac dfrac tfrac binom dbinom tbinom overset underset stackrel".split(), 2),
              **dict.fromkeys("sqrt overline underline hat widehat tilde widetilde bar vec dot ddot check breve acute grave "
                              "overbrace underbrace boldsymbol mathbf mathrm mathit mathsf mathtt mathcal mathbb mathfrak "
                              "operatorname text textrm textit textbf mbox pmod".split(), 1)}
#: commands whose argument TeX sets as text, where '^', '_', '&' and math commands are errors
_TEXT_ARGUMENT = frozenset("text textrm textit textbf mbox".split())
_TEXT_COMMANDS = _TEXT_ARGUMENT | {"quad", "qquad", "ldots", "dots"}
_TEXT_SYMBOLS = frozenset(",;:! {}&_%#$")
#: commands that take a delimiter, and the delimiters
_SIZED = frozenset("left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr".split())
_DELIMITER_CHARS = frozenset("()[]|./<>")
_DELIMITER_COMMANDS = frozenset("{ } | langle rangle lceil rceil lfloor rfloor lvert rvert lVert rVert vert Vert uparrow downarrow".split())
#: what \limits and \nolimits may follow
_OPERATOR_NAMES = frozenset("sum prod int iint oint bigcup bigcap coprod lim limsup liminf sup inf max min arg det Pr gcd lcm".split())
#: the '&' a row of each environment takes (amsmath's matrices have 10 columns; array: as its column letters say)
_AMPERSANDS = {**dict.fromkeys("matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix".split(), 9), "cases": 1, "gathered": 0,
               "smallmatrix": None, "aligned": None}
#: the commands that may stand unbraced as an argument (``x^\top``, ``\hat\theta``): single math characters to TeX,
#: where a macro (``\ldots``, ``\int``, ``\log``) would end the document with "Missing { inserted"
_SINGLE_CHARACTERS = frozenset(_GREEK.split()) | frozenset(
    "top perp infty prime ast star circ bullet dagger ell partial nabla cdot times pm mp le leq ge geq in ni sim approx equiv "
    "subset subseteq supset supseteq cup cap wedge vee land lor oplus otimes odot emptyset forall exists neg lnot mid parallel "
    "langle rangle lceil rceil lfloor rfloor to rightarrow leftarrow Rightarrow Leftarrow leftrightarrow Leftrightarrow "
    "uparrow downarrow setminus ll gg propto simeq".split())
_ENVIRONMENT_NAME = re.compile(r"\s*\{([A-Za-z*]*)\}")
_ARRAY_COLUMNS = re.compile(r"\s*\{([lcr| ]+)\}")

_TOKEN = re.compile(r"\\([A-Za-z]+|.)|(\s+)|(.)", re.S)


class UnsafeLatex(VerifierError, ValueError):
    """A formula outside the subset a report typesets; the message says what and where."""


def check_math(latex: str) -> str:
    r"""``latex`` with its line breaks as spaces, if it is within the typeset subset; else :class:`UnsafeLatex`.

    Within the subset means: whitelisted commands and environments only, and a formula TeX sets
    without an error -- groups, environments and ``\left``/``\right`` balanced and properly
    nested (at most ``MAX_LATEX_NESTING`` deep), every command given its arguments, ``&`` and
    ``\\`` only inside an environment, no double script, text arguments holding text only,
    and ASCII only (pdflatex stops at a character it has no glyph for).
    """
    if len(latex) > MAX_LATEX_CHARS:
        raise UnsafeLatex(f"{len(latex):,} characters, longer than the {MAX_LATEX_CHARS:,} a report typesets")
    text = re.sub(r"[\r\n\t]", " ", latex)
    if "^^" in text:
        raise UnsafeLatex("'^^' (TeX's character-code notation) is not typeset")
    bad = next((ch for ch in text if not 32 <= ord(ch) < 127), None)
    if bad is not None and (ord(bad) < 32 or bad == "\x7f"):
        raise UnsafeLatex(f"the control character {bad!r}")
    if bad is not None:
        raise UnsafeLatex(f"the character {bad!r} (U+{ord(bad):04X}) is not typeset: write it as a command (\\alpha for \u03b1)")
    _Formula(text).check()
    return text


class _Formula:
    r"""One pass over a formula's tokens with a stack of what is open: groups (math or text),
    environments and ``\left`` delimiters."""

    def __init__(self, text: str):
        self.text = text
        # (command name or None, character or None, offset); white space only separates
        self.tokens = [(m.group(1), m.group(3), m.start()) for m in _TOKEN.finditer(text) if m.group(2) is None]
        self.open: list[list] = []  # ["group", "math" | "text"], ["env", name, '&' in this row, most '&' a row takes], ["left", ""]
        self.text_groups: set[int] = set()  # token indices of a '{' that opens a text argument
        self.scripts_checked: set[int] = set()

    def fail(self, i: int, message: str):
        at = self.tokens[i][2] + 1 if i < len(self.tokens) else len(self.text)
        raise UnsafeLatex(f"{message} (at character {at})")

    def text_mode(self) -> bool:
        return bool(self.open) and self.open[-1][:2] == ["group", "text"]

    def inside_environment(self) -> bool:
        return bool(self.open) and self.open[-1][0] == "env"

    def push(self, i: int, frame: list) -> None:
        self.open.append(frame)
        if len(self.open) > MAX_LATEX_NESTING:
            self.fail(i, f"nested deeper than {MAX_LATEX_NESTING} levels (groups, environments and \\left...\\right together)")

    def check(self) -> None:
        i, previous = 0, None
        while i < len(self.tokens):
            command, char, _ = self.tokens[i]
            nxt = self.command(i, command, previous) if command is not None else self.character(i, char)
            previous, i = command, nxt
        if self.open:
            kind, name = self.open[-1][:2]
            if kind == "group":
                raise UnsafeLatex(f"{sum(f[0] == 'group' for f in self.open)} '{{' left open")
            if kind == "env":
                raise UnsafeLatex(f"'\\begin{{{name}}}' is never closed by '\\end{{{name}}}'")
            raise UnsafeLatex("'\\left' without its '\\right'")

    # ------------------------------------------------------------------ commands
    def command(self, i: int, name: str, previous: str | None) -> int:
        if len(name) == 1 and not name.isalpha():
            if name not in _CONTROL_SYMBOLS:
                self.fail(i, f"'\\{name}' is not among the commands a report typesets")
            if self.text_mode() and name not in _TEXT_SYMBOLS:
                self.fail(i, f"'\\{name}' inside text (a \\text{{...}} argument)")
            if name == "\\":
                self.new_row(i)
            return i + 1
        if name not in MATH_COMMANDS:
            self.fail(i, f"'\\{name}' is not among the math commands a report typesets")
        if self.text_mode() and name not in _TEXT_COMMANDS:
            self.fail(i, f"'\\{name}' is mathematics inside text (a \\text{{...}} argument)")
        if name in ("begin", "end"):
            return self.environment(i, name)
        if name in _SIZED:
            return self.delimited(i, name)
        if name in ("limits", "nolimits") and previous not in _OPERATOR_NAMES:
            self.fail(i, f"'\\{name}' does not follow an operator such as \\sum")
        j = i + 1
        if name == "sqrt" and j < len(self.tokens) and self.tokens[j][1] == "[":
            j = self.optional_end(j)
        if name == "operatorname" and j < len(self.tokens) and self.tokens[j][1] == "*":  # \operatorname*: limits form
            j += 1
        for _ in range(_ARGUMENTS.get(name, 0)):
            j = self.argument(j, f"'\\{name}'", text=name in _TEXT_ARGUMENT)
        return i + 1

    def environment(self, i: int, which: str) -> int:
        offset = self.tokens[i][2] + len(which) + 1
        m = _ENVIRONMENT_NAME.match(self.text, offset)
        if m is None or m.group(1) not in MATH_ENVIRONMENTS:
            self.fail(i, f"'\\{which}{{{m.group(1) if m else '...'}}}' is not an environment a report typesets")
        name, end = m.group(1), m.end()
        if which == "begin":
            ampersands = _AMPERSANDS.get(name)
            if name == "array":
                columns = _ARRAY_COLUMNS.match(self.text, end)
                if columns is None:
                    self.fail(i, "'\\begin{array}' without its column letters ({cc}, of l, c and r)")
                end, ampersands = columns.end(), sum(ch in "lcr" for ch in columns.group(1)) - 1
            self.push(i, ["env", name, 0, ampersands])
        elif not any(f[:2] == ["env", name] for f in self.open):
            self.fail(i, f"'\\end{{{name}}}' closes no '\\begin{{{name}}}'")
        elif self.open[-1][:2] != ["env", name]:
            self.fail(i, f"'\\end{{{name}}}' comes before {self.describe(self.open[-1])} opened inside its environment is closed")
        else:
            self.open.pop()
        return next((k for k in range(i + 1, len(self.tokens)) if self.tokens[k][2] >= end), len(self.tokens))

    def delimited(self, i: int, name: str) -> int:
        j = i + 1
        command, char, _ = self.tokens[j] if j < len(self.tokens) else (None, None, 0)
        if not (char in _DELIMITER_CHARS or command in _DELIMITER_COMMANDS):
            self.fail(i, f"'\\{name}' is not followed by a delimiter (such as ( [ | . or \\langle)")
        if name == "left":
            self.push(i, ["left", ""])
        elif name in ("right", "middle"):
            if not self.open or self.open[-1][0] != "left":
                inside = f" inside {self.describe(self.open[-1])}" if self.open else ""
                self.fail(i, f"'\\{name}' without a '\\left' before it{inside}")
            if name == "right":
                self.open.pop()
        return j + 1

    def argument(self, j: int, owner: str, text: bool = False) -> int:
        """Where the argument at token ``j`` ends; a missing one is refused."""
        command, char, _ = self.tokens[j] if j < len(self.tokens) else (None, None, 0)
        if j >= len(self.tokens) or char in ("}", "&", "^", "_") or command in ("\\", "end", "right", "middle"):
            self.fail(j, f"{owner} is missing an argument")
        if char == "{":
            if text:
                self.text_groups.add(j)
            return self.group_end(j)
        if command is not None and text:
            self.fail(j, f"the argument '\\{command}' of {owner} must be braced text")
        if command is not None and command not in _SINGLE_CHARACTERS:
            self.fail(j, f"the argument '\\{command}' of {owner} must be braced ({{\\{command}}}): TeX takes only a single character unbraced")
        if not text and char in ("'", "~"):  # active characters: macros to TeX
            self.fail(j, f"the argument '{char}' of {owner} must be braced ({{{char}}})")
        if text and char is not None and char in "^_&":
            self.fail(j, f"'{char}' inside text (a \\text{{...}} argument)")
        return j + 1

    def group_end(self, j: int) -> int:
        depth = 0
        for k in range(j, len(self.tokens)):
            char = self.tokens[k][1]
            depth += (char == "{") - (char == "}")
            if depth == 0:
                return k + 1
        self.fail(j, "a '{' is never closed")

    def optional_end(self, j: int) -> int:
        depth = 0
        for k in range(j + 1, len(self.tokens)):
            char = self.tokens[k][1]
            depth += (char == "{") - (char == "}")
            if depth == 0 and char == "]":
                return k + 1
        self.fail(j, "a '[' of '\\sqrt[n]' is never closed")

    # ------------------------------------------------------------------ characters
    def character(self, i: int, char: str) -> int:
        if char in "%#$":
            self.fail(i, f"'{char}' is not typeset (a comment, a macro parameter or a math shift)")
        if char == "{":
            self.push(i, ["group", "text" if i in self.text_groups or self.text_mode() else "math"])
        elif char == "}":
            if not self.open:
                self.fail(i, "a '}' closes a group that was not opened")
            if self.open[-1][0] != "group":
                self.fail(i, f"a '}}' closes a group while {self.describe(self.open[-1])} opened inside it is still open")
            self.open.pop()
        elif char in "&^_" and self.text_mode():
            self.fail(i, f"'{char}' inside text (a \\text{{...}} argument)")
        elif char == "&":
            self.new_column(i)
        elif char in "^_'" and i not in self.scripts_checked:
            self.scripts(i)
        return i + 1

    def scripts(self, i: int) -> None:
        """A run of scripts on one base: one superscript and one subscript at most (``x^a^b`` and
        ``x^2'`` are TeX's "Double superscript").  A run of primes is a superscript, merged with
        a '^' written right after it (``x'^2``); a space ends the run (``x' '`` is two)."""
        seen = set()
        while i < len(self.tokens) and self.tokens[i][1] in ("^", "_", "'"):
            char = self.tokens[i][1]
            self.scripts_checked.add(i)
            if char == "'":
                while self.adjacent(i, "'"):
                    i += 1
                    self.scripts_checked.add(i)
                if "^" in seen:
                    self.fail(i, "a double superscript (a prime is a superscript)")
                if self.adjacent(i, "^"):
                    i += 1  # the '^' joins the primes' superscript
                    self.scripts_checked.add(i)
                    seen.add("^")
                    i = self.argument(i + 1, "'^'")
                else:
                    seen.add("^")
                    i += 1
                continue
            if char in seen:
                self.fail(i, "a double superscript" if char == "^" else "a double subscript")
            seen.add(char)
            i = self.argument(i + 1, f"'{char}'")

    def adjacent(self, i: int, char: str) -> bool:
        """Whether token ``i + 1`` is ``char``, written right after token ``i`` (a character)."""
        return i + 1 < len(self.tokens) and self.tokens[i + 1][1] == char and self.tokens[i + 1][2] == self.tokens[i][2] + 1

    def new_column(self, i: int) -> None:
        if not self.inside_environment():
            self.fail(i, "'&' (a new column) outside a matrix or aligned environment")
        frame = self.open[-1]
        frame[2] += 1
        if frame[3] is not None and frame[2] > frame[3]:
            self.fail(i, f"more columns than '\\begin{{{frame[1]}}}' takes ({frame[3] + 1})")

    def new_row(self, i: int) -> None:
        if not self.inside_environment():
            self.fail(i, "'\\\\' (a new row) outside a matrix or aligned environment")
        if i + 1 < len(self.tokens) and self.tokens[i + 1][1] == "[":  # TeX reads a length after it
            self.fail(i, f"'\\\\' followed by '{self.tokens[i + 1][1]}'")
        self.open[-1][2] = 0

    @staticmethod
    def describe(frame: list) -> str:
        kind, name = frame[:2]
        return {"group": "a '{'", "env": f"'\\begin{{{name}}}'", "left": "a '\\left'"}[kind]


def unsafe_reason(latex: str) -> str | None:
    """Why ``latex`` is not typeset, or None when it is."""
    try:
        check_math(latex)
    except UnsafeLatex as exc:
        return str(exc)
    return None


# ---------------------------------------------------------------------------- HTML
_MATHML_ELEMENTS = {"math", "semantics", "annotation", "mrow", "mi", "mo", "mn", "ms", "mtext", "mspace", "msup", "msub",
                    "msubsup", "mfrac", "msqrt", "mroot", "mtable", "mtr", "mtd", "mstyle", "mover", "munder", "munderover",
                    "mpadded", "mphantom", "menclose", "merror", "mfenced", "mmultiscripts", "mprescripts", "none"}
_MATHML_ATTRIBUTES = {"*": {"xmlns", "display", "mathvariant", "displaystyle", "scriptlevel", "stretchy", "fence", "separator",
                            "lspace", "rspace", "width", "height", "depth", "columnalign", "rowalign", "columnspacing", "rowspacing",
                            "columnlines", "rowlines", "frame", "accent", "accentunder", "movablelimits", "largeop", "symmetric",
                            "linethickness", "minsize", "maxsize", "notation", "open", "close", "separators", "form", "encoding"}}


def sanitise_mathml(markup: str) -> str:
    """MathML with only MathML's elements and presentational attributes: no script, no link, no style."""
    return nh3.clean(markup, tags=_MATHML_ELEMENTS, attributes=_MATHML_ATTRIBUTES, url_schemes=set(), link_rel=None,
                     strip_comments=True)


# ---------------------------------------------------------------------------- Markdown
_MD_SPECIAL = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\\": "\\\\", "$": "\\$", "|": "\\|", "`": "\\`"}


def md_text(text) -> str:
    """Plain text for Markdown, on one line: no raw HTML, no link or image, no math, no new block."""
    one_line = " ".join(str(text).replace("\x00", " ").split())
    one_line = "".join(" " if ord(ch) < 32 or ch == "\x7f" else _MD_SPECIAL.get(ch, ch) for ch in one_line)
    return one_line.replace("](", "]\\(")


def md_code(text) -> str:
    """Text as a Markdown code span, on one line, fenced by more backticks than it holds."""
    one_line = " ".join("".join(" " if ord(ch) < 32 or ch == "\x7f" else ch for ch in str(text)).split())
    longest = max((len(run) for run in re.findall(r"`+", one_line)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if one_line.startswith("`") or one_line.endswith("`") or longest else ""
    return f"{fence}{pad}{one_line}{pad}{fence}"


#: what would start a link, an image, a link definition or an autolink, each with an empty group
#: ``{}`` put inside it: TeX sets nothing for the group, Markdown no longer sees the syntax
_MD_LINK_SYNTAX = re.compile(r"\](?=[(\[:])|!(?=\[)|:(?=//)")


def md_math(latex: str) -> str:
    """An accepted formula for a ``$$`` block: one line, no '<' or '>' a Markdown renderer could read
    as HTML, and no link or image syntax (``\\text{[click](javascript:...)}``, ``\\text{![t](https://...)}``):
    where Markdown is rendered before MathJax (OpenReview, many forums) it would be live."""
    text = check_math(latex).replace("<", r"\lt ").replace(">", r"\gt ")
    return _MD_LINK_SYNTAX.sub(lambda m: m.group() + "{}", text)
