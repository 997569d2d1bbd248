"""``verify init`` writes nothing through a link and nothing partial.

The target folders are made by the test: a ``.github``, package folder, store or lock that is
a symbolic link to a folder outside (a clone of someone else's repository can hold one), a
slug too long for a file name, and a failure after the templates are written.  Each time: one
line naming the problem (exit 2), nothing written outside, and the folder left as it was, so
that a rerun is not refused because of leftovers.
"""

import os

import pytest

from verifier.limits import MAX_NAME_CHARS
from verifier.scaffold import package_name

from .packs_helpers import one_line_error, verify

SLUG = "smith-2024"


def tree(folder):
    """Every path below ``folder``, links not followed."""
    return sorted(os.path.relpath(os.path.join(d, n), folder) for d, dirs, files in os.walk(folder) for n in dirs + files)


@pytest.mark.parametrize("link, is_folder", [(".github", True), (package_name(SLUG), True), ("counterexamples", True),
                                             (".github/workflows", True), ("claims.lock", False), ("README.md", False)])
def test_nothing_is_written_through_a_link_in_the_target(tmp_path, link, is_folder):
    outside = tmp_path / "outside"
    outside.mkdir()
    target = tmp_path / "target"
    (target / link).parent.mkdir(parents=True, exist_ok=True)
    (target / link).symlink_to(outside if is_folder else outside / "file", target_is_directory=is_folder)
    before = tree(target)
    r = verify("init", target, "--paper", SLUG, "--force")
    one_line_error(r, str(target / link), "symbolic link")
    assert list(outside.iterdir()) == []
    assert tree(target) == before


def test_a_slug_too_long_for_a_file_name_writes_nothing_and_a_rerun_works(tmp_path):
    target = tmp_path / "target"
    r = verify("init", target, "--paper", "a" * 300)
    one_line_error(r, "--paper", f"limit of {MAX_NAME_CHARS}")
    assert not target.exists()
    r = verify("init", target, "--paper", "a" * MAX_NAME_CHARS + "b")
    one_line_error(r, "--paper")
    assert not target.exists()


def test_a_failure_after_the_templates_leaves_the_folder_as_it_was_and_a_rerun_works(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    (target / "counterexamples").write_text("a file where the store goes\n")  # the lock step fails on it
    r = verify("init", target, "--paper", SLUG, "--force")
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert "counterexamples" in r.stderr
    assert tree(target) == ["counterexamples"]  # the templates written before the failure are gone again
    (target / "counterexamples").unlink()
    r = verify("init", target, "--paper", SLUG)  # not refused as "not empty"
    assert r.exit_code == 0, r.output
    assert (target / "claims.lock").is_file() and (target / package_name(SLUG) / "example.py").is_file()


def test_a_file_in_the_way_of_a_folder_leaves_nothing_written(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    (target / package_name(SLUG)).write_text("not a folder\n")
    r = verify("init", target, "--paper", SLUG, "--force")
    one_line_error(r, package_name(SLUG))
    assert tree(target) == [package_name(SLUG)]
