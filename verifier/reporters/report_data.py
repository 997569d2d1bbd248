"""What every report format shows, computed once: a section per claim, an item per part and reading.

A report is made from a ``verify check`` run (see :mod:`verifier.regression`), so what a
reviewer reads is what the replay and the locked search just reproduced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from ..claims import Check, Claim
from ..coq.runner import KernelCheck
from ..lock import Lock, LockEntry, file_sha256
from ..regression import Outcome, Regression
from ..evidence import CounterexampleFileError
from ..replay import Replay
from ..results import ProofAttempt, Verdict
from .coq_report import kernel_phrase
from .numbers import fmt
from .proof_text import proof_phrase, proof_sentence


@dataclass(frozen=True)
class Item:
    check: Check
    outcome: Outcome
    kernel: Mapping[str, KernelCheck] | None = None  # with --coq: each replayed file's kernel check, by path

    @property
    def latex(self) -> str:
        """The part's LaTeX, unless the reading restates the part without giving LaTeX for it."""
        over = self.check.reading.overrides.get(self.check.part.name, {})
        if over and "latex" not in over:
            return ""
        return self.check.part.latex


@dataclass(frozen=True)
class Section:
    claim: Claim
    items: tuple[Item, ...]


def sections(claims: Iterable[Claim], reg: Regression, kernel: Iterable[KernelCheck] | None = None) -> list[Section]:
    by_key = {o.key: o for o in reg.outcomes}
    by_file = None if kernel is None else {k.file: k for k in kernel}
    out = []
    for claim in claims:
        items = tuple(Item(ch, by_key[ch.key], by_file) for ch in claim.checks() if ch.key in by_key)
        if items:
            out.append(Section(claim, items))
    return out


@dataclass(frozen=True)
class SummaryRow:
    """One locked check for the audit table: its lock entry and its smallest stored counterexample, replayed."""

    claim: Claim
    entry: LockEntry
    counterexample: Replay | None


#: said in a report in place of a listed file whose content is no longer what the lock pins
UNPINNED_NOTE = "not the file the lock pins (edited since `verify lock`; `verify check` names the change), so its values are not shown"


class UnpinnedEvidence(CounterexampleFileError):
    """A file the lock lists that a report cannot show: its bytes are not those the lock pinned, or
    its replay does not give what it states (a value, or the refutation itself)."""


def summary_rows(claims: Iterable[Claim], lock: Lock, replay) -> list[SummaryRow]:
    """Every locked check of ``claims`` in registry order, read from the lock and the files it cites.

    Nothing is searched: this is what the lock records.  Every file it cites is replayed, so the
    values the table shows are the recomputed ones, never a file's word for them.  A file is
    shown only when its sha256 is the one the lock pins, it still refutes and its stored lhs,
    rhs and margin are what its inputs give (else :class:`UnpinnedEvidence` names it).
    ``replay(path)``: the file's replay (in a worker of its claim's pack, :func:`verifier.remote.replay`).
    """
    by_key = lock.by_key()
    rows = []
    for claim in claims:
        for check in claim.checks():
            entry = by_key.get(check.key)
            if entry is None:
                continue
            replays = [_pinned_replay(lock, name, pinned, replay) for name, pinned in zip(entry.counterexamples, entry.sha256)]
            smallest = min(replays, key=lambda r: len(str(r.loaded.document["vars"])), default=None)
            rows.append(SummaryRow(claim, entry, smallest))
    return rows


def _pinned_replay(lock: Lock, name: str, pinned: str, replay) -> Replay:
    path = lock.file(name)
    now = file_sha256(path)
    if now != pinned:
        raise UnpinnedEvidence(name, None, f"its sha256 is {now}, {lock.path} pins {pinned}: a report shows only the evidence "
                                           "the lock pins; `verify check` shows the change, `verify lock` accepts it")
    r = replay(path)
    if not r.still_refutes:
        raise UnpinnedEvidence(name, None, f"no longer refutes its claim when replayed ({r.certificate.status}, margin {r.margin}); "
                                           "`verify check` shows the change")
    try:
        return r.require_stated_values()
    except CounterexampleFileError as exc:
        raise UnpinnedEvidence(name, exc.field, f"{exc.message}; a report shows only values its replay gives") from None


def replay_status(r) -> str:
    """What replaying a stored file just showed, in two words."""
    return "still refutes" if r.still_refutes else "NO LONGER REFUTES"


def heading(claim: Claim) -> str:
    return f"{claim.kind.capitalize()} {claim.id} \u2014 {claim.title}"


def item_label(item: Item) -> str:
    claim = item.check.claim
    bits = []
    if len(claim.parts) > 1:
        bits.append(f"part {item.check.part.name}")
    bits.append(f"reading \u201c{item.check.reading.name}\u201d")
    return ", ".join(bits)


def verdict_label(v: str | None) -> str:
    return (v or "-").upper()


def item_proof(item: Item) -> ProofAttempt | None:
    """The proof tried again for this check by the run behind the report, if any."""
    r = item.outcome.result
    return None if r is None else r.proof


def proof_suffix(item: Item) -> str:
    """`` (proved on D)`` or `` (proof: inconclusive, 88 % of volume)`` after the verdict; empty without a proof."""
    p = item_proof(item)
    return "" if p is None else f" ({proof_phrase(p)})"


def kernel_status(item: Item, path: str) -> str | None:
    """What Coq made of the counterexample file at ``path``; None when the report ran without --coq."""
    k = None if item.kernel is None else item.kernel.get(path)
    return None if k is None else kernel_phrase(k)


def replay_command(path: str) -> str:
    return f"verify replay {path}"


def search_command(item: Item, reg: Regression) -> str:
    s = reg.lock.search
    c = item.check
    return f"verify lemma {c.claim.id} --part {c.part.name} --reading {c.reading.name} --seed {s.seed} --budget {s.budget}"


def search_summary(item: Item) -> str:
    """What the locked search found, in one sentence: budget and closest margin when it survived."""
    r = item.outcome.result
    if r is None:
        return ""
    s = r.stats
    if r.verdict is Verdict.ERROR:
        return f"The claim raised: {r.message}"
    if r.counterexample is not None:
        cx = r.counterexample
        return (f"The locked search (seed {r.seed}, budget {r.budget:,}) finds a counterexample, certified by {cx.certificate}: "
                f"lhs {cx.lhs}, rhs {cx.rhs}, margin {cx.margin}; store it with `verify check --save`")
    if r.verdict is Verdict.PROVED:
        where = f" on {r.domain}" if r.domain else ""
        return f"Proved{where} (method {r.method}; {r.stop_reason})" + (f"; {r.message}" if r.message else "")
    text = (f"No certified counterexample in {s.evaluations:,} float64 evaluations "
            f"(seed {r.seed}, budget {r.budget:,}, {r.stop_reason}); closest margin reached "
            f"{fmt(s.best_margin)} (relative {fmt(s.best_relative_margin)}), largest {r.ratio_name} {fmt(s.max_ratio)}")
    if r.message:
        text += f"; {r.message}"
    if r.proof is not None:
        text += f". {proof_sentence(r.proof)}"
    return text


def found_now(item: Item):
    """The counterexample the locked search found afresh (a drift), or None."""
    r = item.outcome.result
    return r.counterexample if r is not None else None


def greek(name: str) -> str | None:
    """The LaTeX command for a variable spelled as a Greek letter (eps, theta, ...), if any."""
    names = {"eps": "epsilon", "epsilon": "epsilon", "alpha": "alpha", "beta": "beta", "gamma": "gamma", "delta": "delta",
             "theta": "theta", "lam": "lambda", "lambda": "lambda", "mu": "mu", "sigma": "sigma", "tau": "tau", "eta": "eta",
             "rho": "rho", "phi": "phi", "psi": "psi", "omega": "omega", "kappa": "kappa", "nu": "nu", "xi": "xi"}
    return names.get(name)
