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
MATH_ENVIRONMENTS = frozenset("matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix cases aligned gathered split array".split())
#: one-character control symbols: spacing, escaped specials, a matrix row's end
_CONTROL_SYMBOLS = frozenset(",;:! {}|&_%#$\\")

_TOKEN = re.compile(r"\\([A-Za-z]+|.)|(.)", re.S)


class UnsafeLatex(ValueError):
    """A formula outside the subset a report typesets; the message says what and where."""


def check_math(latex: str) -> str:
    """``latex`` with its line breaks as spaces, if it is within the typeset subset; else :class:`UnsafeLatex`."""
    if len(latex) > MAX_LATEX_CHARS:
        raise UnsafeLatex(f"{len(latex):,} characters, longer than the {MAX_LATEX_CHARS:,} a report typesets")
    text = re.sub(r"[\r\n\t]", " ", latex)
    if "^^" in text:
        raise UnsafeLatex("'^^' (TeX's character-code notation) is not typeset")
    depth = 0
    for m in _TOKEN.finditer(text):
        command, char = m.group(1), m.group(2)
        if command is not None:
            if len(command) == 1 and not command.isalpha():
                if command not in _CONTROL_SYMBOLS:
                    raise UnsafeLatex(f"'\\{command}' is not among the commands a report typesets")
            elif command not in MATH_COMMANDS:
                raise UnsafeLatex(f"'\\{command}' is not among the math commands a report typesets")
            if command in ("begin", "end"):
                name = re.match(r"\s*\{([A-Za-z*]*)\}", text[m.end():])
                if name is None or name.group(1) not in MATH_ENVIRONMENTS:
                    raise UnsafeLatex(f"'\\{command}{{{name.group(1) if name else '...'}}}' is not an environment a report typesets")
            continue
        if ord(char) < 32 or char in "\x7f":
            raise UnsafeLatex(f"the control character {char!r}")
        if char in "%#$":
            raise UnsafeLatex(f"'{char}' is not typeset (a comment, a macro parameter or a math shift)")
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                raise UnsafeLatex("a '}' closes a group that was not opened")
    if depth:
        raise UnsafeLatex(f"{depth} '{{' left open")
    return text


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


def md_math(latex: str) -> str:
    """An accepted formula for a ``$$`` block: one line, and no '<' or '>' a Markdown renderer could read as HTML."""
    return check_math(latex).replace("<", r"\lt ").replace(">", r"\gt ")
