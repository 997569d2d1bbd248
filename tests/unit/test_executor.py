"""Executors hand results back in task order, in-process or from forked workers."""

from verifier.executor import ProcessExecutor, SerialExecutor, make_executor, registered_check


def _square(task):
    return task * task


def _echo_check(ref):
    return registered_check(ref).key


def test_serial_and_process_give_the_same_ordered_results():
    tasks = list(range(40))
    with SerialExecutor() as s, ProcessExecutor(2) as p:
        assert list(s.imap(_square, tasks)) == list(p.imap(_square, tasks)) == [t * t for t in tasks]


def test_forked_workers_see_registered_checks():
    from tests.conftest import check_of

    check = check_of("4.1", reading="as-printed")
    with ProcessExecutor(2) as p:
        ref = p.ref(check)
        assert list(p.imap(_echo_check, [ref])) == [check.key]


def test_stopping_early_cancels_the_rest():
    with ProcessExecutor(2) as p:
        it = p.imap(_square, range(1000))
        assert next(it) == 0
        it.close()


def test_make_executor():
    assert isinstance(make_executor(1), SerialExecutor) and make_executor(1).jobs == 1
    ex = make_executor(2)
    assert ex.jobs == 2
    ex.close()
