"""Stored files are bounded before they are parsed, and killed writers leave nothing behind.

Every refusal is a ``CounterexampleFileError`` naming the file and, where there is one, the
field; the property-based test mutates a good file at random and asserts nothing else ever
escapes (no RecursionError, MemoryError, int-conversion ValueError) and that no load takes long.
"""

import copy
import json
import os
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tests.unit.test_store import GOOD, find, write
from verifier import limits
from verifier.evidence import CounterexampleFileError, load, parse_exact, read_document
from verifier.safe_files import check_writable_folder, remove_stale_temporaries, write_atomic
from verifier.store import CounterexampleStore

def refusal(path):
    with pytest.raises(CounterexampleFileError) as info:
        load(path, find)
    return info.value


# ------------------------------------------------------------------------------ not a regular file
def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "cx.json"
    os.mkfifo(fifo)
    start = time.monotonic()
    err = refusal(fifo)
    assert "FIFO" in err.message and str(fifo) in str(err)
    assert time.monotonic() - start < 10  # reading a FIFO with no writer would block forever


def test_folder_and_device_are_refused(tmp_path):
    assert "folder" in refusal(tmp_path).message
    assert "device" in refusal("/dev/zero").message  # would never end


def test_file_larger_than_the_limit_is_refused_unread(tmp_path):
    big = tmp_path / "cx.json"
    with open(big, "wb") as fh:
        fh.truncate(limits.MAX_FILE_BYTES + 1)  # sparse: costs no disk
    assert "larger than the limit" in refusal(big).message


# ------------------------------------------------------------------------------ numbers and nesting
def test_nesting_is_refused_naming_the_top_level_field(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    text = json.dumps(GOOD)[:-1] + f', "extra": {{"x": {deep}}}}}'
    err = refusal(write(tmp_path, text))
    assert err.field == "extra" and "nested deeper" in err.message


def test_brackets_inside_strings_do_not_count_as_nesting(tmp_path):
    doc = dict(GOOD, note="[" * 1000 + '\\"{' * 100)
    assert load(write(tmp_path, doc), find).dims == {"n": 3, "d": 1}


@pytest.mark.parametrize("where, field", [("eps", "vars.eps"), ("dps", "dps")])
def test_json_integer_longer_than_the_limit_names_the_field(tmp_path, where, field):
    digits = "7" * 100_000
    text = json.dumps(GOOD).replace('"eps": "1"', f'"eps": {digits}' if where == "eps" else '"eps": "1"')
    if where == "dps":
        text = text.replace('"dps": 50', f'"dps": {digits}')
    err = refusal(write(tmp_path, text))
    assert err.field == field and "longer than the limit" in err.message


def test_number_string_longer_than_the_limit_names_the_entry(tmp_path):
    doc = copy.deepcopy(GOOD)
    doc["vars"]["A"][1][0] = "1" * 100_000
    err = refusal(write(tmp_path, doc))
    assert err.field == "vars.A" and "[1, 0]" in err.message and "longer than the limit" in err.message


@pytest.mark.parametrize("text", ["1e999999999", "1e-999999999", "1.5E+100000"])
def test_huge_exponent_is_refused_not_expanded(text):
    with pytest.raises(limits.LimitError, match="exponent"):
        parse_exact(text)


def test_huge_exponent_as_a_json_float_names_the_field(tmp_path):
    text = json.dumps(GOOD).replace('"eps": "1"', '"eps": 1e999999999')
    err = refusal(write(tmp_path, text))
    assert err.field == "vars.eps" and "exponent" in err.message


# ------------------------------------------------------------------------------ dims and dps
def test_dims_beyond_the_limit_are_refused_before_allocating(tmp_path):
    err = refusal(write(tmp_path, dict(GOOD, dims={"n": 10**9, "d": 1})))
    assert err.field == "dims.n" and "limit" in err.message


def test_entries_beyond_the_limit_are_refused(tmp_path):
    err = refusal(write(tmp_path, dict(GOOD, dims={"n": limits.MAX_DIM, "d": limits.MAX_DIM})))
    assert err.field == "dims" and "entries" in err.message


@pytest.mark.parametrize("dps", [14, limits.MAX_DPS + 1, 10**9])
def test_dps_outside_the_limits_is_refused(tmp_path, dps):
    with pytest.raises(CounterexampleFileError) as info:
        read_document(write(tmp_path, dict(GOOD, dps=dps)))
    assert info.value.field == "dps"


# ------------------------------------------------------------------------------ random mutations
_JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30),
    st.text(alphabet="0123456789-+/.eE[]{}\"x", max_size=30),
    st.sampled_from(["1e999999999", "9" * 5000, "1/0", "nan", "-Infinity", "3/7"]),
    st.lists(st.integers(-3, 3), max_size=4),
    st.integers(min_value=0, max_value=10**12),
)
_PATHS = [("dims", "n"), ("dims", "d"), ("dims",), ("vars", "A"), ("vars", "eps"), ("vars", "B"), ("dps",), ("claim",),
          ("part",), ("reading",), ("schema_version",), ("vars",), ("lhs",)]


def _set(doc, path, value):
    target = doc
    for key in path[:-1]:
        if not isinstance(target.get(key), dict):
            target[key] = {}
        target = target[key]
    target[path[-1]] = value


@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.sampled_from(_PATHS), _JUNK), min_size=1, max_size=3),
       wrap=st.sampled_from(["", "nest", "trail"]))
def test_a_mutated_file_is_loaded_or_refused_by_field_quickly(tmp_path, edits, wrap):
    doc = copy.deepcopy(GOOD)
    for path, value in edits:
        _set(doc, path, value)
    text = json.dumps(doc)
    if wrap == "nest":
        text = text[:-1] + ', "z": ' + "[" * 5000 + "]" * 5000 + "}"
    elif wrap == "trail":
        text = text[: len(text) // 2]
    path = write(tmp_path, text)
    start = time.monotonic()
    try:
        load(path, find)
    except CounterexampleFileError as exc:
        assert str(path) in str(exc)
    # bounded work: a refused or accepted file is decided well within a second on any input here
    assert time.monotonic() - start < 5


# ------------------------------------------------------------------------------ temporaries
def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_temporaries_of_dead_writers_are_removed_and_live_ones_kept(tmp_path):
    stale = tmp_path / f".cx.json.{_dead_pid()}.abcd1234.tmp"
    live = tmp_path / f".cx.json.{os.getppid()}.abcd1234.tmp"
    other = tmp_path / "notes.tmp"  # not one of ours
    for p in (stale, live, other):
        p.write_text("half a file")
    write_atomic(tmp_path / "cx.json", "{}\n")
    assert not stale.exists() and live.exists() and other.exists()
    assert (tmp_path / "cx.json").read_text() == "{}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["cx.json", live.name, other.name])


def test_store_listing_sweeps_its_tree(tmp_path):
    folder = tmp_path / "alman-song-2025" / "4.1"
    folder.mkdir(parents=True)
    stale = folder / f".main-as-printed-seed0.json.{_dead_pid()}.zz_99xyz.tmp"
    stale.write_text("{")
    assert CounterexampleStore(tmp_path).files("alman-song-2025", "4.1") == []
    assert not stale.exists()


def test_old_temporaries_without_a_pid_are_removed_once_old(tmp_path):
    old = tmp_path / ".cx.json.k3j4h5g6.tmp"
    old.write_text("{")
    assert remove_stale_temporaries(tmp_path) == []
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    assert remove_stale_temporaries(tmp_path) == [old]


# ------------------------------------------------------------------------------ the store is checked before searching
def test_an_unwritable_store_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OSError, match="not a folder"):
        check_writable_folder(blocker / "sub")
    with pytest.raises(CounterexampleFileError) as info:
        CounterexampleStore(blocker / "sub").check_writable()
    assert str(blocker / "sub") in str(info.value)
    check_writable_folder(tmp_path / "new" / "folder")  # created, writable
    assert (tmp_path / "new" / "folder").is_dir() and list((tmp_path / "new" / "folder").iterdir()) == []
