"""Executors: where the engine's seed-addressed chunks of work run.

The engine hands an executor a list of tasks and reads the results back *in task order*;
what a chunk computes depends only on the check, the configuration and the chunk's own
address (phase, index, start point), never on which worker ran it or when.  So a seed gives
the same result with one job or many, and a distributed executor only has to provide the
same ordered ``map`` to be plugged in.

Claims hold lambdas, which plain pickle cannot send.  The process pool is *forked* after
the checks it will run are registered in this module, and tasks name a check by its position
in that table.  Dask workers share no memory with us and may run on another machine, where a
pack loaded from a folder cannot be imported: there a task carries its check *by value*
(cloudpickle, with the modules of claim packs pickled by value too), so a worker needs the
verifier and the libraries claims call, never the pack itself.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import dataclasses
import hashlib
import importlib.metadata
import ipaddress
import logging
import multiprocessing
import os
import re
import signal
import sys
import time
import warnings
from collections import OrderedDict, deque
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, Callable, Iterable, Iterator

from .limits import capped_jobs

#: checks visible to forked workers: token -> Check
_CHECKS: dict[int, Any] = {}

#: how long a ``dask://`` scheduler, and then its first worker, may take to answer
CONNECT_TIMEOUT = 10.0

SPECS = "serial, process, dask-local or dask://HOST:PORT"


class ExecutorError(ValueError):
    """An executor that cannot be made: a bad spec, Dask missing, a scheduler that does not answer."""


class WorkerEnvironmentError(RuntimeError):
    """A Dask worker lacks what a task needs (a module the check refers to by name)."""


class SerialExecutor:
    """Runs tasks one after another in this process (no start-up cost)."""

    jobs = 1

    def ref(self, check) -> Any:
        """How a task names ``check``: in-process, the check itself."""
        return check

    def imap(self, fn: Callable, tasks: Iterable) -> Iterator:
        for t in tasks:
            yield fn(t)

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class ProcessExecutor(SerialExecutor):
    """A pool of forked worker processes; results come back in task order.

    At most ``2 * jobs`` tasks are in flight, so a search that stops at its first certified
    counterexample wastes little work; pending tasks are cancelled when the consumer stops.
    """

    def __init__(self, jobs: int):
        if jobs < 1:
            raise ValueError(f"a process pool needs at least 1 job, got {jobs}")
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None
        self._owner = os.getpid()  # the process whose pool it is: a forked child makes its own

    def ref(self, check) -> int:
        """A token the forked workers resolve; registered before the pool forks."""
        token = id(check)
        if _CHECKS.get(token) is not check:
            if self._pool is not None:  # workers were forked before this check existed
                self.close()
            _CHECKS[token] = check
        return token

    def _ensure_pool(self) -> ProcessPoolExecutor:
        self._forget_inherited_pool()
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("fork"),
                                             initializer=die_with_parent, initargs=(os.getpid(),))
        return self._pool

    def imap(self, fn: Callable, tasks: Iterable) -> Iterator:
        pool = self._ensure_pool()
        window: deque[Future] = deque()
        it = iter(tasks)
        try:
            for t in it:
                window.append(pool.submit(fn, t))
                if len(window) >= 2 * self.jobs:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()
        finally:
            for f in window:
                f.cancel()

    def close(self) -> None:
        self._forget_inherited_pool()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def _forget_inherited_pool(self) -> None:
        """In a process forked after the pool started (an isolated worker), the pool's threads
        and pipes are the parent's: this process neither uses nor shuts it down."""
        if self._owner != os.getpid():
            self._pool, self._owner = None, os.getpid()


class DaskExecutor(SerialExecutor):
    """Tasks on the workers of a Dask scheduler; results come back in task order.

    ``jobs`` is the number of worker threads the scheduler has when we connect; as with the
    process pool, at most ``2 * jobs`` tasks are in flight and the rest are cancelled when
    the consumer stops.  Deadlines inside tasks are this machine's ``time.monotonic()``;
    a worker on another machine moves them onto its own clock (see ``run_on_worker``).
    """

    def __init__(self, client, cluster=None):
        self._client, self._cluster = client, cluster
        workers = client.scheduler_info()["workers"].values()
        self.jobs = max(1, sum(w.get("nthreads", 1) for w in workers))
        self.address = client.scheduler.address

    @classmethod
    def local(cls, workers: int) -> "DaskExecutor":
        """A ``LocalCluster`` of ``workers`` processes with one thread each, closed with the executor."""
        distributed = _import_distributed()
        import dask

        # Dask's nanny starts workers with glibc's trim threshold at 64 KiB, so numpy's
        # batch-sized temporaries would be fresh mmap pages each time; workers keep freed
        # blocks instead, with the thresholds the engine sets in its own process
        environ = {**dask.config.get("distributed.nanny.pre-spawn-environ", {}),
                   "MALLOC_MMAP_THRESHOLD_": 32 * 2**20, "MALLOC_TRIM_THRESHOLD_": 64 * 2**20}
        with warnings.catch_warnings(), dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
            # the scheduler's HTTP server moves to a free port when another cluster holds 8787: nothing to say
            warnings.filterwarnings("ignore", message="Port .* is already in use", category=UserWarning)
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                               dashboard_address=None, silence_logs=logging.CRITICAL)
        try:
            return cls(distributed.Client(cluster, set_as_default=False), cluster)
        except BaseException:
            cluster.close()
            raise

    @classmethod
    def connect(cls, address: str, timeout: float | None = None) -> "DaskExecutor":
        """The scheduler at ``tcp://HOST:PORT``, once it has at least one worker."""
        timeout = CONNECT_TIMEOUT if timeout is None else timeout
        distributed = _import_distributed()
        # Client's own timeout covers the TCP connection, not the handshake: a silent listener
        # on the port held it forever.  A scheduler answers "identity" at once.
        _ask_identity(f"tcp://{address}", timeout)
        try:
            client = distributed.Client(f"tcp://{address}", timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError):
            raise ExecutorError(f"no Dask scheduler answered at tcp://{address} within {timeout:g} s") from None
        try:
            client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError):
            client.close()
            raise ExecutorError(f"the Dask scheduler at tcp://{address} has no worker (waited {timeout:g} s)") from None
        return cls(client)

    def ref(self, check) -> "CheckByValue":
        return CheckByValue(check)

    def imap(self, fn: Callable, tasks: Iterable) -> Iterator:
        import cloudpickle

        window: deque = deque()
        clock = clock_domain()
        try:
            for t in tasks:
                # the task travels as bytes the scheduler never opens: only a worker unpickles the
                # check, and a worker that cannot says so (the scheduler would fail the whole graph);
                # pure=False: tasks are never deduplicated, and their arguments are not hashed
                payload = cloudpickle.dumps(t)
                window.append(self._client.submit(run_on_worker, fn, payload, time.monotonic(), clock, pure=False))
                if len(window) >= 2 * self.jobs:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()
        finally:
            if window:
                self._client.cancel(list(window))

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def _ask_identity(address: str, timeout: float) -> None:
    """Connect to ``address`` and ask who is there, all within ``timeout`` seconds; an
    ExecutorError unless a Dask scheduler answers."""
    import asyncio

    from distributed.comm import connect

    async def ask():
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    try:
        reply = asyncio.run(asyncio.wait_for(ask(), timeout))
    except (OSError, TimeoutError, asyncio.TimeoutError, ValueError, TypeError):
        raise ExecutorError(f"no Dask scheduler answered at {address} within {timeout:g} s") from None
    except Exception as exc:  # whatever a stranger on the port sent back
        raise ExecutorError(f"what answered at {address} is not a Dask scheduler ({type(exc).__name__})") from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise ExecutorError(f"what answered at {address} is not a Dask scheduler")


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ExecutorError("needs Dask: pip install 'ml-claim-verifier[dask]' (in a checkout: pip install -e '.[dask]')") from None
    return distributed


# ---------------------------------------------------------------------------- checks by value
class CheckByValue:
    """A check as a Dask task carries it: pickled by value, unpickled once per worker process.

    The modules of claim packs (a pack loaded from a folder has a private name no other
    process can import) are pickled by value while the check is; the verifier, numpy, mpmath
    and flint are imported by name on the worker.
    """

    def __init__(self, check):
        self.check = check
        self.payload = pickle_check(check)
        self.digest = hashlib.sha256(self.payload).hexdigest()

    def __reduce__(self):
        # unpickles as the check itself, so a task reads the same on a worker as in-process
        return (unpickled_check, (self.digest, self.payload))


_UNPICKLED: OrderedDict[str, Any] = OrderedDict()
_UNPICKLED_KEPT = 64


def unpickled_check(digest: str, payload: bytes):
    """The check of ``payload``, kept per worker so a pack's module state lives across tasks."""
    import pickle

    check = _UNPICKLED.get(digest)
    if check is None:
        check = _UNPICKLED[digest] = pickle.loads(payload)
        while len(_UNPICKLED) > _UNPICKLED_KEPT:
            _UNPICKLED.popitem(last=False)
    return check


def pickle_check(check) -> bytes:
    import cloudpickle

    roots = {name for name in by_value_roots(check) if name not in cloudpickle.list_registry_pickle_by_value()}
    for name in roots:
        cloudpickle.register_pickle_by_value(sys.modules[name])
    try:
        return cloudpickle.dumps(check)
    finally:
        for name in roots:
            cloudpickle.unregister_pickle_by_value(sys.modules[name])


def by_value_roots(check) -> set[str]:
    """Top-level modules of the check's functions a worker may not have: claim packs, and
    anything no installed distribution provides (a folder pack, a test module)."""
    provided = _installed_top_levels()
    packs = _claim_pack_roots()
    own = __name__.split(".")[0]
    roots = set()
    for fn in _callables(check):
        root = (getattr(fn, "__module__", None) or "").split(".")[0]
        if root and root not in {own, "__main__", "builtins"} and root in sys.modules and (root in packs or root not in provided):
            roots.add(root)
    return roots


def _callables(obj, depth: int = 0) -> Iterator:
    """Every function held in the dataclass tree of a check (claim, parts, readings, variables)."""
    if depth > 8:
        return
    if callable(obj) and not isinstance(obj, type) and not dataclasses.is_dataclass(obj):
        yield obj
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from _callables(getattr(obj, f.name), depth + 1)
    elif isinstance(obj, (tuple, list)):
        for item in obj:
            yield from _callables(item, depth + 1)
    elif isinstance(obj, dict) or hasattr(obj, "items") and hasattr(obj, "keys"):
        for item in obj.values():
            yield from _callables(item, depth + 1)


_TOP_LEVELS: set[str] | None = None


def _installed_top_levels() -> set[str]:
    global _TOP_LEVELS
    if _TOP_LEVELS is None:
        _TOP_LEVELS = set(importlib.metadata.packages_distributions()) | set(sys.stdlib_module_names)
    return _TOP_LEVELS


def _claim_pack_roots() -> set[str]:
    return {ep.value.split(":")[0].split(".")[0] for ep in importlib.metadata.entry_points(group="verifier.packs")}


# ---------------------------------------------------------------------------- on a Dask worker
def run_on_worker(fn: Callable, payload: bytes, sent_at: float, clock: str | None):
    """Run one pickled task on a Dask worker; on another machine its deadlines move onto this clock.

    ``time.monotonic()`` counts from an arbitrary point per machine (per boot on Linux), so
    a deadline read on another machine is meaningless; the shift measured here includes the
    transfer, which makes the worker's deadline that much later, never earlier.
    """
    import pickle

    try:
        task = pickle.loads(payload)
    except Exception as exc:
        raise WorkerEnvironmentError(f"a Dask worker could not read its task ({type(exc).__name__}: {exc}); a worker needs "
                                     "ml-claim-verifier and the libraries the claims import") from None
    if clock is None or clock != clock_domain():
        task = shift_deadlines(task, time.monotonic() - sent_at)
    return fn(task)


def shift_deadlines(task, shift: float):
    """``task`` with every dataclass field named ``deadline`` (at its top level) moved by ``shift``."""
    def moved(item):
        if dataclasses.is_dataclass(item) and not isinstance(item, type) and isinstance(getattr(item, "deadline", None), float):
            return dataclasses.replace(item, deadline=item.deadline + shift)
        return item

    if isinstance(task, tuple):
        return tuple(moved(item) for item in task)
    return moved(task)


def clock_domain() -> str | None:
    """Names the monotonic clock: processes with the same Linux boot id read the same one."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as fh:
            return fh.read().strip()
    except OSError:
        return None


# ---------------------------------------------------------------------------- choosing one
_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


def die_with_parent(parent: int) -> None:
    """Pool initializer: a worker ends when the process that forked it dies, even by SIGKILL.

    Otherwise a killed ``verify`` leaves its workers computing for nobody.  Linux delivers
    SIGKILL to the worker when its parent exits; elsewhere the worker keeps the default.
    """
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl in this libc
            return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def parse_spec(spec: str) -> tuple[str, str | None]:
    """``serial``, ``process``, ``dask-local`` or ``dask://HOST:PORT`` -> (kind, HOST:PORT or None)."""
    text = spec.strip()
    if text in ("serial", "process", "dask-local"):
        return text, None
    if text.startswith("dask://"):
        rest = text[len("dask://"):].rstrip("/")
        if rest.startswith("[") and not re.fullmatch(r"\[[^\[\]]*\]:[^:\[\]]*", rest):
            raise ExecutorError(f"{rest!r}: an IPv6 address goes in brackets, then the port: dask://[::1]:8786")
        host, sep, port = rest.rpartition(":")
        if not sep or not host:
            raise ExecutorError("a scheduler address is dask://HOST:PORT")
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise ExecutorError(f"port {port!r} is not a number from 1 to 65535")
        return "dask", f"{_checked_host(host)}:{int(port)}"
    raise ExecutorError(f"not an executor; executors: {SPECS}")


_HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,252}[A-Za-z0-9])?")


def _checked_host(host: str) -> str:
    """A host name, an IPv4 address or an IPv6 address in brackets ([::1]), as written."""
    if host.startswith("[") or host.endswith("]") or ":" in host:
        inner = host[1:-1] if host.startswith("[") and host.endswith("]") else None
        try:
            ipaddress.IPv6Address(inner)
        except ValueError:
            raise ExecutorError(f"host {host!r} is not a host name or an address; an IPv6 address goes in brackets: "
                                "dask://[::1]:8786") from None
        return host
    if not _HOST_NAME.fullmatch(host):
        raise ExecutorError(f"host {host!r} is not a host name or an address")
    return host


_SHARED: contextvars.ContextVar[SerialExecutor | None] = contextvars.ContextVar("shared_executor", default=None)


class _Borrowed(SerialExecutor):
    """The executor of an enclosing ``executor_scope``: used, never closed, by whoever asked."""

    def __init__(self, owner: SerialExecutor):
        self._owner, self.jobs = owner, owner.jobs

    def ref(self, check):
        return self._owner.ref(check)

    def imap(self, fn, tasks):
        return self._owner.imap(fn, tasks)


def make_executor(jobs: int = 1, spec: str | None = None) -> SerialExecutor:
    """The executor ``spec`` names, with ``jobs`` workers where it starts them (``0``: one per core).

    Without a spec: the executor of the enclosing ``executor_scope`` if there is one, else
    in-process for ``jobs`` <= 1 and a forked pool otherwise.  Never more local workers than
    cores available: more only add memory and switching.
    """
    if spec is None:
        shared = _SHARED.get()
        if shared is not None:
            return _Borrowed(shared)
        kind = "process"
    else:
        kind, address = parse_spec(spec)
    if kind == "dask":
        return DaskExecutor.connect(address)
    jobs = capped_jobs(jobs)
    if kind == "dask-local":
        return DaskExecutor.local(max(jobs, 1))
    if kind == "serial" or jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return SerialExecutor()
    return ProcessExecutor(jobs)


@contextlib.contextmanager
def sharing(executor: SerialExecutor) -> Iterator[SerialExecutor]:
    """Within the block, every ``make_executor`` without a spec hands out ``executor`` (one
    cluster for a whole command, not one per check); whoever made it closes it."""
    token = _SHARED.set(executor)
    try:
        yield executor
    finally:
        _SHARED.reset(token)


@contextlib.contextmanager
def executor_scope(spec: str, jobs: int = 1) -> Iterator[SerialExecutor]:
    """The executor ``spec`` names, shared within the block and closed at its end."""
    with make_executor(jobs, spec) as executor, sharing(executor):
        yield executor


def forks_safely() -> bool:
    """Can work that may use the enclosing executor run in a forked child?  Not with Dask:
    the client's connection and event loop stay with the process that made them."""
    shared = _SHARED.get()
    return not isinstance(shared, DaskExecutor)


def registered_check(ref):
    """The check a task names: a forked worker's token, or the check itself (in-process, or
    already unpickled from its value on a Dask worker)."""
    if isinstance(ref, int):
        return _CHECKS[ref]
    if isinstance(ref, CheckByValue):
        return ref.check
    return ref


__all__ = ["SerialExecutor", "ProcessExecutor", "DaskExecutor", "CheckByValue", "ExecutorError", "SPECS", "die_with_parent",
           "executor_scope", "forks_safely", "make_executor", "parse_spec", "registered_check", "sharing", "shift_deadlines"]
