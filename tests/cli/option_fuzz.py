"""A seeded fuzzer of the command line's options: every command, every option that takes a value.

Run as ``python -m tests.cli.option_fuzz SEED CASES`` (tests/cli/test_option_fuzz.py does, in a
process with a memory limit): it writes a small pack and its lock into a temporary folder, then
gives one option of one command one hostile value per case, the other options at cheap settings,
and prints one JSON line per case: the command line, the exit status, whether a traceback or an
internal error was printed, the seconds it took.  At the end, the process's and its workers'
peak memory.  The values are a fixed list of what a careless or hostile user types (huge and
non-finite numbers, other scripts' digits, empty strings, paths too long for a file system,
duplicated keys) and random strings, drawn from the seed.
"""

from __future__ import annotations

import json
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import textwrap
import time
import traceback
from pathlib import Path

import click
from click.testing import CliRunner

from verifier.cli import main

CLAIM = textwrap.dedent('''
    from verifier import Claim, Dim, Part, Scalar, Vector

    claim = Claim(id="t1", title="t", paper="fuzz-paper", statement="c * sum x <= 0",
                  dims=[Dim("n", 1, 3)], variables=[Vector("x", "n"), Scalar("c", lo=0, hi=2)],
                  parts=[Part("main", lhs=lambda ctx, v: ctx.sum_all(v.x) * v.c, rhs=lambda ctx, v: 0)])
''')

#: what a careless or hostile user types as an option's value
HOSTILE = ["", " ", "-", "--", "-1", "0", "1e400", "-1e400", "1e999999999", "nan", "inf", "-inf", "9" * 80, "1/0", "abc", "\u09ea",
           "\uff11", "0x10", "1.5", "a" * 5000, "=", ":", ",", "0:1e400", "1e400:0", "x=0:1e999999999", "c=0:1e400", "c=1:2,c=0:1",
           "n=999999999999", "n=-1", "n=0", "n=2,n=3", "n=1e3", "../../x", "dask:", "process", "serial:3", "x in [0, 1e999999]",
           "x in [0, 1]", "n in 1..99999999999", "\u00e9", "a\nb", "2" * 400, "-0", "1e-400", "0.0000000001"]
#: cases that ended in a traceback, an internal error, a run without end or the wrong exit status on the
#: tree before this fuzzer (issue 36): run every time, before the seeded ones; each must be exit 2
KNOWN = [("prove", "--box", "x=0:1e999999999"), ("prove", "--box", "c=0:1e400"), ("prove", "--dims", "n=1,n=1"),
         ("experiment layer-collapse", "--seed", "-1"),
         ("experiment rank-collapse", "--weight-factors", "1e80"), ("check", "--junit", "j" * 5000), ("check", "--store", "s" * 5000),
         ("report", "-o", "o" * 5000), ("experiment rank-collapse", "--out", "d" * 5000)]
#: options whose value is not a value to fuzz here (a pack is code the tests of packs cover)
SKIPPED = {"--pack"}


def command_options() -> list[tuple[str, str]]:
    """(command path, option) for every option of every command that takes a value."""
    out = []

    def walk(cmd, path):
        if isinstance(cmd, click.Group):
            for name, sub in sorted(cmd.commands.items()):
                walk(sub, path + [name])
            return
        for p in cmd.params:
            if isinstance(p, click.Option) and not p.is_flag and p.opts[0] not in SKIPPED:
                out.append((" ".join(path), p.opts[0]))

    walk(main, [])
    return out


def base_args(command: str, project: Path, stored: Path, scratch: Path) -> list[str]:
    """The command line a case starts from: cheap settings, the required arguments."""
    search = ["--budget", "300", "--time", "5", "--prove-time", "0"]
    return {
        "all": ["all", *search], "lemma": ["lemma", "t1", *search], "list": ["list"], "show": ["show", "t1"],
        "replay": ["replay", str(stored)], "lock": ["lock", *search], "check": ["check"], "report": ["report"],
        "tighten": ["tighten", "t1", "--budget", "300", "--time", "2", "--rounds", "2"],
        "prove": ["prove", "t1", "--dims", "n=1", "--time", "5"],
        "init": ["init", str(scratch / "init"), "--paper", "p-1"],
        "experiment layer-collapse": ["experiment", "layer-collapse", "--small"],
        "experiment rank-collapse": ["experiment", "rank-collapse", "--small"],
        "expr": ["expr", "x <= 1", "--var", "x in [0, 2]", *search],
    }[command].copy()


def cases(seed: int, count: int) -> list[tuple[str, str, str]]:
    """The known cases, then ``count`` (command, option, value) cases drawn from the seed: every
    option at least once where ``count`` allows, each with a hostile value or a random string."""
    rng = random.Random(seed)
    options = command_options()
    rng.shuffle(options)
    picked = [options[i % len(options)] for i in range(count)]
    out = list(KNOWN)
    for command, option in picked:
        if rng.random() < 0.8:
            value = rng.choice(HOSTILE)
        else:
            alphabet = "0123456789eE+-.:=/,x n\u09ea\u00e9[]()"
            value = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))
        out.append((command, option, value))
    return out


class _Late(BaseException):
    pass


def _late(*_):
    raise _Late()


def run_case(args: list[str], cwd: Path, limit: int) -> dict:
    start = time.monotonic()
    old = os.getcwd()
    os.chdir(cwd)
    signal.signal(signal.SIGALRM, _late)
    signal.alarm(limit)
    try:
        r = CliRunner().invoke(main, args)
        escaped = r.exception is not None and not isinstance(r.exception, SystemExit)
        output = r.output
        code = r.exit_code
        if escaped:
            output += "".join(traceback.format_exception(r.exception))
    except _Late:
        code, output, escaped = None, "", False
    finally:
        signal.alarm(0)
        os.chdir(old)
    return {"exit": code, "seconds": round(time.monotonic() - start, 2), "traceback": escaped or "Traceback" in output,
            "internal_error": "internal error" in output, "tail": output.strip().splitlines()[-1][:300] if output.strip() else ""}


def main_(seed: int, count: int, limit: int = 90) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        template = root / "template"
        (template / "fuzzpack").mkdir(parents=True)
        (template / "fuzzpack" / "claim.py").write_text(CLAIM)
        (template / "pyproject.toml").write_text('[tool.verifier]\npacks = ["fuzzpack"]\n')
        locked = run_case(["lock", "--budget", "300", "--prove-time", "0", "--jobs", "1"], template, limit)
        assert locked["exit"] == 0, locked
        for i, (command, option, value) in enumerate(cases(seed, count)):
            project = root / f"case{i}"
            shutil.copytree(template, project)
            stored = next((project / "counterexamples").rglob("*.json"))
            args = base_args(command, project, stored, project)
            if option in args:  # the fuzzed value replaces the base's (a --box or --dims given twice is refused now)
                at = args.index(option)
                del args[at:at + 2]
            args += [option, value]
            print(json.dumps({"command": command, "option": option, "value": value, **run_case(args, project, limit)}), flush=True)
            shutil.rmtree(project, ignore_errors=True)
    peak = {"self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}
    print(json.dumps({"peak_kib": peak}), flush=True)


if __name__ == "__main__":
    main_(int(sys.argv[1]), int(sys.argv[2]))
