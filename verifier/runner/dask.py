"""Dask: chunks of a search and boxes of a proof on the workers of a Dask scheduler.

Dask workers share no memory with us and may run on another machine, where a pack loaded from
a folder cannot be imported: there a task carries its check *by value* (cloudpickle, with the
modules of claim packs pickled by value too), so a worker needs the verifier and the libraries
claims call, never the pack itself.  A Dask client cannot cross a fork, so a worker of ours
that runs a check connects a client of its own to the scheduler's address.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import ipaddress
import logging
import re
import sys
import time
import warnings
from collections import OrderedDict, deque
from typing import Any, Callable, Iterable, Iterator

from ..errors import VerifierError
from .authorship import installed_pack_roots
from .outcome import Outcome

#: how long a ``dask://`` scheduler, and then its first worker, may take to answer
CONNECT_TIMEOUT = 10.0

SPECS = "serial, process, dask-local or dask://HOST:PORT"


class RunnerError(VerifierError, ValueError):
    """A runner that cannot be made: a bad spec, Dask missing, a scheduler that does not answer."""


class WorkerEnvironmentError(VerifierError, RuntimeError):
    """A Dask worker lacks what a task needs (a module the check refers to by name)."""


class DaskRunner:
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
    def local(cls, workers: int) -> "DaskRunner":
        """A ``LocalCluster`` of ``workers`` processes with one thread each, closed with the runner."""
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
    def connect(cls, address: str, timeout: float | None = None) -> "DaskRunner":
        """The scheduler at ``tcp://HOST:PORT``, once it has at least one worker."""
        timeout = CONNECT_TIMEOUT if timeout is None else timeout
        distributed = _import_distributed()
        # Client's own timeout covers the TCP connection, not the handshake: a silent listener
        # on the port held it forever.  A scheduler answers "identity" at once.
        _ask_identity(f"tcp://{address}", timeout)
        try:
            client = distributed.Client(f"tcp://{address}", timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError):
            raise RunnerError(f"no Dask scheduler answered at tcp://{address} within {timeout:g} s") from None
        try:
            client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError):
            client.close()
            raise RunnerError(f"the Dask scheduler at tcp://{address} has no worker (waited {timeout:g} s)") from None
        return cls(client)

    def ref(self, check) -> "CheckByValue":
        return CheckByValue(check)

    def map(self, fn: Callable, items: Iterable, limit=None, on_message=None, affinity=None, workers=None) -> Iterator[Outcome]:
        """``fn(item)`` on the Dask workers, an :class:`Outcome` per item in order (a task that
        raised is ``raised``, with the exception's name and message)."""
        stream = self._submitted(fn, items)
        while True:
            start = time.monotonic()
            try:
                value = next(stream)
            except StopIteration:
                return
            except Exception as exc:
                yield Outcome("raised", exception=type(exc).__name__, detail=str(exc)[:500], seconds=time.monotonic() - start)
                stream.close()
                return
            yield Outcome("returned", value=value, seconds=time.monotonic() - start)

    def imap(self, fn: Callable, items: Iterable) -> Iterator:
        return self._submitted(fn, items)

    def _submitted(self, fn: Callable, tasks: Iterable) -> Iterator:
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

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _ask_identity(address: str, timeout: float) -> None:
    """Connect to ``address`` and ask who is there, all within ``timeout`` seconds; an
    RunnerError unless a Dask scheduler answers."""
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
        raise RunnerError(f"no Dask scheduler answered at {address} within {timeout:g} s") from None
    except Exception as exc:  # whatever a stranger on the port sent back
        raise RunnerError(f"what answered at {address} is not a Dask scheduler ({type(exc).__name__})") from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise RunnerError(f"what answered at {address} is not a Dask scheduler")


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise RunnerError("needs Dask: pip install 'ml-claim-verifier[dask]' (in a checkout: pip install -e '.[dask]')") from None
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
    packs = installed_pack_roots()
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


def installed_pack_roots() -> set[str]:
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



def parse_spec(spec: str) -> tuple[str, str | None]:
    """``serial``, ``process``, ``dask-local`` or ``dask://HOST:PORT`` -> (kind, HOST:PORT or None)."""
    text = spec.strip()
    if text in ("serial", "process", "dask-local"):
        return text, None
    if text.startswith("dask://"):
        rest = text[len("dask://"):].rstrip("/")
        if rest.startswith("[") and not re.fullmatch(r"\[[^\[\]]*\]:[^:\[\]]*", rest):
            raise RunnerError(f"{rest!r}: an IPv6 address goes in brackets, then the port: dask://[::1]:8786")
        host, sep, port = rest.rpartition(":")
        if not sep or not host:
            raise RunnerError("a scheduler address is dask://HOST:PORT")
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise RunnerError(f"port {port!r} is not a number from 1 to 65535")
        return "dask", f"{_checked_host(host)}:{int(port)}"
    raise RunnerError(f"not an executor; executors: {SPECS}")


_HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,252}[A-Za-z0-9])?")


def _checked_host(host: str) -> str:
    """A host name, an IPv4 address or an IPv6 address in brackets ([::1]), as written."""
    if host.startswith("[") or host.endswith("]") or ":" in host:
        inner = host[1:-1] if host.startswith("[") and host.endswith("]") else None
        try:
            ipaddress.IPv6Address(inner)
        except ValueError:
            raise RunnerError(f"host {host!r} is not a host name or an address; an IPv6 address goes in brackets: "
                                "dask://[::1]:8786") from None
        return host
    if not _HOST_NAME.fullmatch(host):
        raise RunnerError(f"host {host!r} is not a host name or an address")
    return host




__all__ = ["CONNECT_TIMEOUT", "CheckByValue", "DaskRunner", "RunnerError", "SPECS", "WorkerEnvironmentError", "by_value_roots",
           "clock_domain", "parse_spec", "run_on_worker", "shift_deadlines"]
