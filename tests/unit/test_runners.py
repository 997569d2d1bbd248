"""Runners hand results back in task order, in-process or from forked workers."""

from verifier.runner import ForkedRunner, SerialRunner, make_runner, registered_check


def _square(task):
    return task * task


def _echo_check(ref):
    return registered_check(ref).key


def test_serial_and_process_give_the_same_ordered_results():
    tasks = list(range(40))
    with SerialRunner() as s, ForkedRunner(2) as p:
        assert list(s.imap(_square, tasks)) == list(p.imap(_square, tasks)) == [t * t for t in tasks]


def test_forked_workers_see_registered_checks():
    from tests.conftest import check_of

    check = check_of("4.1", reading="as-printed")
    with ForkedRunner(2) as p:
        ref = p.ref(check)
        assert list(p.imap(_echo_check, [ref])) == [check.key]


def test_stopping_early_cancels_the_rest():
    with ForkedRunner(2) as p:
        it = p.imap(_square, range(1000))
        assert next(it) == 0
        it.close()


def test_make_runner():
    assert isinstance(make_runner(1), SerialRunner) and make_runner(1).jobs == 1
    ex = make_runner(2)
    assert ex.jobs == 2
    ex.close()


# ---------------------------------------------------------------------------- choosing one by name
import dataclasses  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402

from verifier.runner import dask as executor_module  # noqa: E402
from verifier.runner import make_runner as make_executor  # noqa: E402
from verifier.runner.dask import RunnerError as ExecutorError, parse_spec, shift_deadlines  # noqa: E402


@pytest.mark.parametrize("spec, parsed", [
    ("serial", ("serial", None)), ("process", ("process", None)), ("dask-local", ("dask-local", None)),
    ("dask://10.0.0.5:8786", ("dask", "10.0.0.5:8786")), ("dask://sched.example:8786/", ("dask", "sched.example:8786")),
])
def test_specs_parse(spec, parsed):
    assert parse_spec(spec) == parsed


@pytest.mark.parametrize("spec, says", [
    ("threads", "serial, process, dask-local or dask://HOST:PORT"), ("dask://:8786", "dask://HOST:PORT"),
    ("dask://host", "dask://HOST:PORT"), ("dask://host:0", "port '0'"), ("dask://host:http", "port 'http'"),
])
def test_a_bad_spec_names_what_is_wrong(spec, says):
    with pytest.raises(ExecutorError, match=says.replace("/", ".").replace("(", ".")):
        parse_spec(spec)


def test_serial_and_process_specs_follow_jobs():
    assert isinstance(make_executor(4, "serial"), SerialRunner) and make_executor(4, "serial").jobs == 1
    with make_executor(2, "process") as ex:
        assert isinstance(ex, ForkedRunner) and ex.jobs == 2


def test_without_dask_installed_the_error_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    for spec in ("dask-local", "dask://127.0.0.1:8786"):
        with pytest.raises(ExecutorError, match=r"pip install 'ml-claim-verifier\[dask\]' \(in a checkout: pip install -e '\.\[dask\]'\)"):
            make_executor(1, spec)


def test_an_unreachable_scheduler_is_an_error_after_the_timeout(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(executor_module, "CONNECT_TIMEOUT", 1.0)
    with pytest.raises(ExecutorError, match=r"no Dask scheduler answered at tcp://127.0.0.1:9 within 1 s"):
        make_executor(1, "dask://127.0.0.1:9")


@dataclasses.dataclass(frozen=True)
class _Timed:
    index: int
    deadline: float


def test_deadlines_move_onto_another_clock_and_nothing_else_does():
    task = ("check", {"deadline": 5.0}, _Timed(3, 100.0))
    assert shift_deadlines(task, 2.5) == ("check", {"deadline": 5.0}, _Timed(3, 102.5))
    assert shift_deadlines(_Timed(1, 1.0), -1.0) == _Timed(1, 0.0)
