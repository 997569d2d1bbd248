"""The documented limits on every option and every number read from a file, in one place.

A verifier must never exhaust the machine because an option or a stored file asked it to:
each limit below is checked before any work starts, and a value outside it is refused with a
message naming the option, or the file and the field.  The bounds are generous for the
claims of a paper (the pack's largest stored number has 90 digits, its deepest file nests 6
levels, its largest dimension is 8) and small enough that the worst accepted input stays
far below a gigabyte of memory.

``--budget`` is a count of evaluations, never an allocation: any budget up to
``MAX_BUDGET`` is accepted and the time limit ends a run that cannot spend it.
"""

from __future__ import annotations

import math
import os
import re
import unicodedata
from fractions import Fraction

from .errors import VerifierError

#: digits of the high-precision re-check (``--dps``, a stored file's ``dps``); above ~4,000 the
#: certificates' conversions pass Python's own limit on integer digits (sys.get_int_max_str_digits)
MIN_DPS, MAX_DPS = 15, 2_000
#: float64 evaluations per check (``--budget``); a count, stopped by the time limit
MAX_BUDGET = 10**15
#: seconds per check (``--time``): finite, positive, at most a week
MAX_SECONDS = 7 * 24 * 3600.0
#: ``--seed``: the non-negative integers numpy's seed sequences take, up to 64 bits
MAX_SEED = 2**64 - 1
#: ``tighten --rounds``
MAX_ROUNDS = 1_000
#: branch-and-bound boxes per proof of a survivor (--prove-boxes)
MAX_PROVE_BOXES = 10**9
#: one dimension of a stored counterexample (``dims.n``)
MAX_DIM = 100
#: entries of all the variables of a stored counterexample together
MAX_ENTRIES = 10_000
#: characters of one number in a file ("3/7", "1e-3", a JSON integer), and its decimal exponent
MAX_NUMBER_CHARS = 4_000
#: bytes of a counterexample file or a lockfile
MAX_FILE_BYTES = 8 * 2**20
#: nesting of arrays and objects in a JSON file
MAX_NESTING = 32
#: characters of a paper slug, claim id, part or reading name: each becomes part of a file's path
#: (folders ``<paper>/<claim>/``, file ``<part>-<reading>-seed<N>.json``), which stays far below
#: the 255 bytes a file name may have
MAX_NAME_CHARS = 100

#: a number an option gives a proof domain (``--box LO:HI``): its characters, its decimal exponent
#: and its size.  The provers compute with a box's bounds exactly: [0, 10^400] sends their interval
#: arithmetic through numbers of hundreds of digits (and exp of it beyond any memory), and
#: "1e999999999" is a billion-digit integer before anything is checked
MAX_OPTION_NUMBER_CHARS = 40
MAX_OPTION_EXPONENT = 30
MAX_BOX_MAGNITUDE = 10**6

#: bytes the arrays of one ``verify experiment`` run may take, estimated from its sizes before it
#: starts (BERT-base's default shape needs about 0.8 GB); each size option has its own cap too
MAX_EXPERIMENT_BYTES = 4 * 2**30
#: caps on each size option of ``verify experiment rank-collapse`` (BERT-large is 1024 wide, 24 deep)
RANK_COLLAPSE_CAPS = {"width": 8192, "heads": 128, "depth": 1000, "tokens": 8192, "batch": 4096, "mlp_width": 32768,
                      "sweep_batch": 4096}
#: caps on each size option of ``verify experiment layer-collapse`` (its networks are tiny by design)
LAYER_COLLAPSE_CAPS = {"widths": 256, "depths": 256, "heads": 64, "tokens": 256, "starts": 1000, "random_inputs": 10**6,
                       "fit_rounds": 100, "fit_inputs": 10**5, "search_iterations": 10**5, "fit_iterations": 10**5}
#: a weight bound or weight scale of ``verify experiment`` (``--etas``, ``--weight-factors``): a weight
#: standard deviation of 1e80 overflows float64 inside the network, and the fits fail on it
MAX_EXPERIMENT_SCALE = 1e6
#: entries of a list option of ``verify experiment`` (``--etas``, ``--widths``, ``--weight-factors``, ...)
MAX_EXPERIMENT_LIST = 64


class LimitError(VerifierError, ValueError):
    """A value outside its documented limit; the message names the limit."""


def available_cores() -> int:
    """The CPUs this process may run on (its affinity mask, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def capped_jobs(jobs: int) -> int:
    """``jobs`` worker processes, at most one per available core (``0``: one per core)."""
    cores = available_cores()
    return cores if jobs == 0 else min(jobs, cores)


def check_seconds(value: float) -> float:
    if not (isinstance(value, (int, float)) and math.isfinite(value)):
        raise LimitError(f"must be a finite number of seconds, got {value!r}")
    if not 0 < value <= MAX_SECONDS:
        raise LimitError(f"must be in (0, {MAX_SECONDS:g}] seconds, got {value:g}")
    return float(value)


def check_int(value, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise LimitError(f"must be an integer, got {type(value).__name__}")
    if not lo <= value <= hi:
        raise LimitError(f"must be between {lo:,} and {hi:,}, got {_short(value)}")
    return value


def check_number_text(text: str) -> str:
    """A number written in a file must be short: its digits and its decimal exponent."""
    if len(text) > MAX_NUMBER_CHARS:
        raise LimitError(f"a number of {len(text):,} characters is longer than the limit of {MAX_NUMBER_CHARS:,}")
    return text


def check_exponent(exponent: int) -> int:
    """A decimal exponent (``1e-400``) expands to that many digits when made exact."""
    if abs(exponent) > MAX_NUMBER_CHARS:
        raise LimitError(f"a decimal exponent of {_short(exponent)} is beyond the limit of {MAX_NUMBER_CHARS:,}")
    return exponent


_OPTION_NUMBER = re.compile(r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE]([+-]?[0-9]+))?|([+-]?[0-9]+)/([0-9]+)")


def check_option_number(text: str, magnitude: int = MAX_BOX_MAGNITUDE) -> Fraction:
    """A number as an option writes it (``3``, ``-0.25``, ``1e-3``, ``1/100``), sized before it is
    made exact: ASCII digits, at most ``MAX_OPTION_NUMBER_CHARS`` characters, a decimal exponent
    within ``MAX_OPTION_EXPONENT``, and at most ``magnitude`` in absolute value."""
    text = text.strip()
    if len(text) > MAX_OPTION_NUMBER_CHARS:
        raise LimitError(f"a number of {len(text):,} characters is longer than the limit of {MAX_OPTION_NUMBER_CHARS}")
    m = _OPTION_NUMBER.fullmatch(text)
    if m is None:
        raise LimitError(f"{text!r} is not a number (integers, decimals or fractions like 1/100, in ASCII digits)")
    if m.group(2) is not None and abs(int(m.group(2))) > MAX_OPTION_EXPONENT:
        raise LimitError(f"{text!r}: a decimal exponent beyond the limit of {MAX_OPTION_EXPONENT}")
    if m.group(4) is not None and int(m.group(4)) == 0:
        raise LimitError(f"{text!r} divides by zero")
    value = Fraction(text)
    if abs(value) > magnitude:
        raise LimitError(f"{text} is beyond the limit of {magnitude:,} in absolute value")
    return value


def check_name(text, path_component: bool) -> str:
    """A claim id, paper slug, part or reading name that a stored file's path is made from.

    Every name: a non-empty string of at most ``MAX_NAME_CHARS`` characters without control
    characters.  A ``path_component`` (the paper and the claim id: folders of the store) also
    has no path separator and is neither ``.`` nor ``..``, so it names one folder inside the
    store and nothing else.  Part and reading names only enter a file name through a filter
    that keeps ``[A-Za-z0-9_.-]``, so they may hold separators (a reading ``explicit-2A/L``).
    """
    if not isinstance(text, str):
        raise LimitError(f"must be a string, got {type(text).__name__}")
    if not text:
        raise LimitError("must not be empty")
    if len(text) > MAX_NAME_CHARS:
        raise LimitError(f"{len(text):,} characters, longer than the limit of {MAX_NAME_CHARS}")
    bad = next((ch for ch in text if ord(ch) < 32 or 127 <= ord(ch) < 160 or ch in "\u2028\u2029"), None)
    if bad is not None:
        raise LimitError(f"holds the control character {bad!r}")
    if path_component:
        if "/" in text or "\\" in text:
            raise LimitError("holds a path separator (/ or \\): it names a folder of the counterexample store")
        if text in (".", ".."):
            raise LimitError(f"{text!r} is not a folder name")
    return text


def folder_key(paper: str, claim: str) -> tuple[str, str]:
    """What a case-insensitive, normalising file system (macOS's, Windows') compares of a claim's
    folder ``<paper>/<claim>``: two claims with one key would share their stored counterexamples
    there (``é1.1`` typed composed and decomposed, ``A1`` and ``a1``)."""
    return unicodedata.normalize("NFC", paper or "unknown-paper").casefold(), unicodedata.normalize("NFC", claim).casefold()


def rank_collapse_bytes(width: int, heads: int, depth: int, tokens: int, batch: int, mlp_width: int, precisions: int,
                        weight_factors: int, sweep_batch: int) -> int:
    """An upper estimate of the bytes a rank-collapse run holds at once (float64 throughout).

    A layer's weights (drawn, then scaled per precision), every variant's activations per
    precision, one layer's attention scores and MLP hidden units, and the weight sweep: its
    deep networks, and per layer the input's projections and the output matrices it keeps
    until the end, then every head's output of one sequence."""
    n, d, m, b, s = tokens, width, mlp_width, batch, min(sweep_batch, batch)
    weights = 3 * (4 * d * d + 2 * d * m)
    activations = 2 * precisions * 4 * b * n * d
    one_layer = 2 * b * (heads * n * n + n * m + 4 * n * d)
    sweep = weight_factors * s * n * d + depth * (s * n * 3 * d + d * d) + 2 * depth * heads * n * d
    return 8 * (weights + activations + one_layer + sweep)


def layer_collapse_bytes(width: int, depth: int, heads: int, tokens: int, starts: int, random_inputs: int, fit_inputs: int) -> int:
    """An upper estimate of the bytes a layer-collapse run holds at once at its largest width and depth.

    The worst-input search evaluates a batch of 2 n d + 1 inputs (central differences over the
    n x d entries) through every layer, with an (n d) x (n d) block of probes; the surrogates are
    measured on the random and fitting inputs."""
    size = tokens * width
    batch = 2 * size + 1 + 128 + random_inputs + fit_inputs
    per_input = depth * (heads * tokens * tokens + 4 * tokens * width + 3 * width * width)
    return 8 * (4 * size * size + 2 * batch * per_input + starts * size)


def _short(value: int) -> str:
    # str() of a huge int is itself refused by Python (and slow): describe its size instead
    return str(value) if abs(value) < 10**30 else f"a number of about {int(value.bit_length() * 0.30103):,} digits"


__all__ = [
    "LAYER_COLLAPSE_CAPS", "LimitError", "MAX_BUDGET", "MAX_DIM", "MAX_EXPERIMENT_BYTES", "MAX_EXPERIMENT_LIST", "MAX_EXPERIMENT_SCALE", "MAX_NAME_CHARS", "MAX_DPS", "MAX_ENTRIES", "MAX_FILE_BYTES", "MAX_NESTING", "MAX_NUMBER_CHARS",
    "MAX_BOX_MAGNITUDE", "MAX_OPTION_EXPONENT", "MAX_OPTION_NUMBER_CHARS", "MAX_ROUNDS", "MAX_SECONDS", "MAX_SEED", "MIN_DPS", "available_cores", "capped_jobs", "check_exponent", "check_int", "check_name",
    "check_number_text", "check_option_number", "check_seconds", "folder_key", "layer_collapse_bytes", "RANK_COLLAPSE_CAPS", "rank_collapse_bytes",
]
