"""What the process that decides accepts from a worker: data, never code.

A worker runs a pack's code, and a pickle can name any callable to run when it is loaded.  An
answer from a worker is therefore loaded by :class:`DataUnpickler`, which resolves only
classes that hold data: the verifier's own dataclasses and enums (its results, its claims as
described, its kinds of sets), the builtin containers, exact numbers and numpy's arrays and
scalars.  Anything else (``os.system``, a pack's own class, a function of ours) makes the
answer unreadable, which fails its task: the worker broke the protocol.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import io
import pickle

from ..errors import VerifierError

#: classes outside the verifier an answer may hold: containers and exact numbers (their
#: constructors compute nothing but the value)
_PLAIN = {
    ("builtins", name) for name in ("set", "frozenset", "complex", "bytearray", "slice", "range", "list", "dict", "tuple", "int",
                                    "float", "str", "bytes", "bool", "object")
} | {
    ("fractions", "Fraction"), ("decimal", "Decimal"), ("collections", "OrderedDict"), ("pathlib", "PosixPath"),
    ("pathlib", "PurePosixPath"), ("datetime", "datetime"), ("datetime", "date"), ("datetime", "timedelta"),
    ("numpy", "dtype"), ("numpy", "ndarray"), ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"), ("numpy.dtypes", None),
    ("copyreg", "_reconstructor"),
}

_OWN_PREFIX = "verifier."
#: the verifier's value types that are not dataclasses: subclasses of these hold a value and nothing else
_VALUE_BASES = (tuple, frozenset, float, int, str)
#: functions of ours that rebuild a value from plain data (a class's ``__reduce__`` names them)
_REBUILDERS = {("verifier.contexts.values", "_bound_from")}


class UnreadableAnswer(VerifierError):
    """An answer from a worker that is not plain data (or not a pickle at all)."""


class DataUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if "." in name:
            raise UnreadableAnswer(f"names {module}.{name}: a nested name")
        if (module, name) in _PLAIN or (module, None) in _PLAIN:
            return super().find_class(module, name)
        if module.startswith(_OWN_PREFIX):
            found = getattr(importlib.import_module(module), name, None)
            if isinstance(found, type) and (dataclasses.is_dataclass(found) or issubclass(found, (enum.Enum, *_VALUE_BASES))):
                return found
            if (module, name) in _REBUILDERS:
                return found
        raise UnreadableAnswer(f"names {module}.{name}, which is not plain data")


def loads_data(data: bytes):
    """The plain data ``data`` holds; :class:`UnreadableAnswer` for anything else."""
    try:
        return DataUnpickler(io.BytesIO(data)).load()
    except UnreadableAnswer:
        raise
    except Exception as exc:  # truncated, corrupt, or a constructor that refused its arguments
        raise UnreadableAnswer(f"could not be read: {type(exc).__name__}: {exc}"[:300]) from None


__all__ = ["DataUnpickler", "UnreadableAnswer", "loads_data"]
