"""Plain data returned by the engine; reporters turn it into text, JSON, reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping


class Verdict(str, Enum):
    REFUTED = "refuted"  # a certified counterexample exists
    SURVIVED = "survived"  # no counterexample within the budget
    INCONCLUSIVE = "inconclusive"  # a violation or a tie that high precision could not settle
    ERROR = "error"  # the claim raised, or could not be evaluated at most points
    PROVED = "proved"  # proved on a stated bounded domain
    ILL_POSED = "ill-posed"  # a definition does not define a unique object
    SURROGATE_FAILS = "surrogate-fails"  # a named witness of an existential claim fails

    def __str__(self) -> str:
        return self.value


#: verdicts that make ``verify`` exit with status 1
FAILING = {Verdict.REFUTED, Verdict.ILL_POSED}


class StopReason(str, Enum):
    """Why a check's search ended (``CheckResult.stop_reason`` says it in words)."""

    FOUND = "found"  # a certified counterexample
    BUDGET = "budget"  # the evaluations were spent
    TIME_LIMIT = "time-limit"  # the time limit came first
    NOT_EVALUABLE = "not-evaluable"  # the claim could not be evaluated at most points
    CLAIM_RAISED = "claim-raised"  # the claim's code raised
    WORKER_LOST = "worker-lost"  # its worker ended, crashed, hung or broke the protocol
    PROVED_FIRST = "proved-first"  # a cheap proof on the whole search domain made the search needless

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class FoundBy:
    """How a counterexample was found, so benchmarks can explain themselves."""

    phase: str  # "generate", "target", "deep" (arbitrary-precision search), "solver", ...
    evaluations: int  # float evaluations spent when it was found
    seconds: float


@dataclass(frozen=True)
class Counterexample:
    """A certified violation with exact rational inputs."""

    claim: str
    part: str
    reading: str
    paper: str
    dims: Mapping[str, int]
    vars: Mapping[str, Any]  # name -> nested lists of exact strings ("3/7")
    lhs: str  # decimal strings at ``dps`` significant digits (exact when they terminate)
    rhs: str
    margin: str
    dps: int
    method: str  # "exact" | "interval"
    certificate: str  # one sentence a human can check
    seed: int | None = None
    found_by: FoundBy | None = None
    shrunk: bool = False
    derived: Mapping[str, Any] = field(default_factory=dict)  # Part.show, as exact strings
    kinds: Mapping[str, str] = field(default_factory=dict)  # variable -> its kind, "stochastic(n x m, n=2, m=3)"


@dataclass(frozen=True)
class SearchStats:
    evaluations: int = 0
    nonfinite: int = 0
    hypothesis_rejected: int = 0
    float_violations: int = 0
    rechecked: int = 0
    rejected_by_recheck: int = 0
    tight_points: int = 0
    worst_rejected_float_margin: float | None = None
    best_margin: float | None = None
    best_relative_margin: float | None = None
    max_ratio: float | None = None
    best_point: Mapping[str, Any] | None = None
    max_ratio_point: Mapping[str, Any] | None = None  # where max_ratio is reached (float values)
    unresolved: int = 0  # float violations below float64's resolution (decided at dps digits)
    deep_evaluations: int = 0  # evaluations at dps digits in the deep phase
    undefined: int = 0  # re-evaluated points undefined at dps and at 4 dps digits too
    undefined_rechecked: int = 0  # float64-undefined points re-evaluated at high precision
    undefined_example: Mapping[str, Any] | None = None  # {"dims", "vars", "reason"} of one such point
    tight_undecided: int = 0  # points whose certificate straddled zero at its highest precision
    tight_detail: str | None = None  # the certifier's words for one of them (enclosure, bits)


class ProofStatus(str, Enum):
    PROVED = "proved"  # on the stated domain
    INCONCLUSIVE = "inconclusive"  # the time limit came first; ``volume_percent`` says how far it got
    REFUTED = "refuted"  # the proof found a certified counterexample the search missed
    ERROR = "error"  # the claim raised in the prover, or its proof domain is unusable
    NOT_ATTEMPTED = "not attempted"  # the total proof time was spent before this check's turn

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class ProofAttempt:
    """A proof tried for a check that survived the search, on the domain its claim states."""

    status: ProofStatus
    domain: str  # as printed: "n = 2; a \u2208 [-2, 2]^2, eps \u2208 [0, 2]"
    spec: Mapping[str, Any] = field(default_factory=dict)  # {"dims", "boxes", "relations"}: what the lock records
    method: str = ""  # smt | branch-and-bound
    volume_percent: float | None = None  # share of the box volume decided, rounded down to 0.1 %
    seconds: float = 0.0
    time_limit: float = 0.0
    message: str = ""
    #: larger sizes also proved within the attempt's budget (the dimensions the domain leaves
    #: free, each one larger): ``("n = 3", "n = 4")``
    also: tuple[str, ...] = ()
    #: proved only because lhs and rhs are the same function at these sizes (an inequality
    #: whose lhs - rhs simplifies to 0): true, and worth nothing to a reader
    identical_sides: bool = False
    #: the strategy of :data:`verifier.prove.STRATEGIES` whose answer this is ("exp-basis")
    strategy: str = ""
    #: set when the domain proved is narrower than the statement's: what the proof leaves out
    #: ("x ∈ ℝ in the statement, x ∈ [-10000, 10000] proved")
    narrower: str = ""
    #: set when the proof covers the statement's wider domain too: that domain and how
    #: ("x ∈ ℝ (exp-basis on it)")
    covers: str = ""
    #: for a proof that did not finish: where it is stuck (the undecided boxes' hull, the nearest
    #: exact equality point found), one sentence
    stuck: str = ""
    #: every strategy's turn, as plain data ({"name", "outcome", "seconds", "reason"})
    attempts: tuple = ()
    #: what the proof rests on, for a checker smaller than the prover
    #: (:class:`verifier.prove.certificate.ProofCertificate`; None: not recorded)
    certificate: Any = None
    #: what Coq's kernel made of the proof's pinned certificate, as the lock records it ("checked",
    #: "unchecked: why"; "" when no kernel was asked): a re-proof in `verify check` carries the lock's
    kernel: str = ""


@dataclass(frozen=True)
class CheckResult:
    claim: str
    part: str
    reading: str
    verdict: Verdict
    method: str = "none"  # exact | interval | none | smt | branch-and-bound
    counterexample: Counterexample | None = None
    stats: SearchStats = field(default_factory=SearchStats)
    seconds: float = 0.0
    seed: int | None = None
    dps: int = 50
    budget: int = 0
    stop_reason: str = ""
    message: str = ""
    kind: str = "claim"
    title: str = ""
    statement: str = ""
    reading_summary: str = ""
    relation: str = "<="
    domain: str = ""  # for verdict PROVED: where it was proved
    time_limited: bool = False  # the search stopped at its time limit before its budget
    proof: ProofAttempt | None = None  # for a check that survived: the proof tried on its stated domain
    stop: StopReason | None = None  # why the search ended (None: a row not made by a search)
    read_as: str = ""  # the part as its text was read (Part.read_as), Python syntax

    @property
    def ratio_name(self) -> str:
        """What ``stats.max_ratio`` measures: oriented to approach 1 as a violation nears."""
        return "rhs/lhs" if self.relation in (">=", ">") else "lhs/rhs"

    @property
    def certified(self) -> bool:
        return self.method != "none" and self.verdict in (Verdict.REFUTED, Verdict.PROVED, Verdict.ILL_POSED, Verdict.SURROGATE_FAILS)


@dataclass(frozen=True)
class RunResult:
    results: tuple[CheckResult, ...]

    @property
    def exit_code(self) -> int:
        if any(r.verdict is Verdict.ERROR for r in self.results):
            return 2
        if any(r.verdict in FAILING for r in self.results):
            return 1
        return 0
