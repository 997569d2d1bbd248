"""The runner's forked workers: work comes back as data, however it ends."""

import faulthandler
import os
import signal
import sys
import time

import pytest

from verifier.runner import ForkedRunner, OutOfTime, TimeLimitExceeded, call_within, run_isolated, send_message, time_box
from verifier.runner.pool import ForkedPool


def isolated_map(fn, items, jobs=1, limit=None, on_message=None):
    with ForkedPool(jobs) as pool:
        yield from pool.map(fn, items, limit, on_message)

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="isolation forks")


def behave(kind):
    if kind == "value":
        send_message("started")
        return {"pid": os.getpid(), "answer": 42}
    if kind == "sys.exit":
        sys.exit(3)
    if kind == "os._exit":
        os._exit(0)
    if kind == "keyboard":
        raise KeyboardInterrupt
    if kind == "raise":
        raise ValueError("a plain error")
    if kind == "sleep":
        while True:
            time.sleep(0.05)
    if kind == "swallow":  # catches the watchdog's exception and goes on: only the parent's kill ends it
        while True:
            try:
                time.sleep(0.05)
            except BaseException:
                pass
    if kind == "segfault":
        faulthandler.disable()  # pytest's handler would print this worker's stack on the way down
        os.kill(os.getpid(), signal.SIGSEGV)
    if kind == "unpicklable":
        return lambda: None
    raise AssertionError(kind)


def test_every_ending_is_an_outcome_in_task_order():
    kinds = ["value", "sys.exit", "os._exit", "keyboard", "raise", "sleep", "segfault", "unpicklable", "value"]
    messages = []
    outcomes = list(isolated_map(behave, kinds, jobs=2, limit=lambda kind: 0.5, on_message=lambda i, m: messages.append((i, m))))
    got = dict(zip(kinds[:-1], outcomes[:-1]))
    assert outcomes[0].returned and outcomes[0].value["answer"] == 42 and outcomes[-1].returned
    assert outcomes[0].value["pid"] != os.getpid()
    assert sorted(messages) == [(0, "started"), (8, "started")]
    assert got["sys.exit"].status == "raised" and got["sys.exit"].describe().startswith("called sys.exit(3)")
    assert "test_runner.py, line" in got["sys.exit"].where
    assert got["os._exit"].status == "exited" and got["os._exit"].exit_status == 0
    assert got["keyboard"].exception == "KeyboardInterrupt"
    assert got["raise"].exception == "ValueError" and got["raise"].detail == "a plain error"
    assert got["sleep"].out_of_time and "in behave" in got["sleep"].where
    assert got["segfault"].crashed and got["segfault"].signal == signal.SIGSEGV and "SIGSEGV" in got["segfault"].describe()
    assert got["unpicklable"].status == "raised" and "could not be sent back" in got["unpicklable"].detail


def test_code_that_swallows_the_watchdog_is_killed_by_the_parent():
    outcome = run_isolated(behave, "swallow", limit=0.2)
    assert outcome.status == "timed out" and outcome.out_of_time


def test_a_worker_takes_task_after_task_and_is_replaced_only_after_an_abrupt_end():
    outcomes = list(isolated_map(behave, ["value", "value", "os._exit", "value"], jobs=1))
    pids = [o.value["pid"] for o in outcomes if o.returned]
    assert pids[0] == pids[1] != pids[2]


def _children() -> set:
    return {int(c) for t in os.listdir("/proc/self/task") for c in open(f"/proc/self/task/{t}/children").read().split()}


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="needs Linux /proc")
def test_a_consumer_that_stops_early_leaves_no_worker():
    before = _children()
    stream = isolated_map(behave, ["value", "sleep", "sleep"], jobs=2, limit=lambda kind: 60)
    first = next(stream)
    workers = _children() - before
    stream.close()
    assert first.returned and len(workers) == 2
    assert not (_children() & workers)  # killed and reaped: not even zombies


def test_time_boxes_nest_and_the_earliest_deadline_wins():
    start = time.monotonic()
    with pytest.raises(TimeLimitExceeded) as outer:
        with time_box(start + 0.2):
            with pytest.raises(OutOfTime):
                call_within(start + 0.1, time.sleep, 5)
            call_within(start + 10, time.sleep, 5)  # the outer box runs out first: its own exception
    assert outer.value.deadline == start + 0.2
    assert time.monotonic() - start < 2
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)


def _square(x):
    return x * x


def test_a_pool_started_before_a_fork_is_not_used_by_the_child():
    with ForkedRunner(2) as ex:
        assert list(ex.imap(_square, range(4))) == [0, 1, 4, 9]  # the pool's workers answer here
        # the child makes workers of its own (and closes them: a task leaves no process behind)
        outcome = run_isolated(lambda _: (list(ex.imap(_square, range(5))), ex.close())[0], limit=60)
        assert outcome.returned and outcome.value == [0, 1, 4, 9, 16], outcome
        assert list(ex.imap(_square, range(3))) == [0, 1, 4]


def test_an_alarm_that_runs_its_handler_as_the_box_closes_leaves_nothing_behind(monkeypatch):
    # Python runs a signal's handler at its next check, so a reminder that fired just before the
    # box stops the timer raises inside the box's cleanup: simulated here right after the stop
    import verifier.runner.watchdog as isolation

    real_setitimer, fired = signal.setitimer, []

    def setitimer(which, seconds, interval=0.0):
        out = real_setitimer(which, seconds, interval)
        if seconds == 0 and not fired:
            fired.append(True)
            raise TimeLimitExceeded(0.0, "a pending reminder")
        return out

    monkeypatch.setattr(isolation.signal, "setitimer", setitimer)
    with time_box(time.monotonic() + 60):
        pass
    assert fired and not isolation.BOXES and isolation._OUTER is None
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0) and signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
