"""The pytest plugin: ``pytest --claims`` in a paper's repository, run as a real subprocess."""

import json
import subprocess
import sys

from .lock_project import CHECKS, K_SELECT, locked_template, project  # noqa: F401  (fixtures)


def pytest_in(folder, *args):
    # -p no:cacheprovider: write nothing into the project; the plugin itself comes from the entry point
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args], cwd=folder,
                          capture_output=True, text=True, timeout=300)


def test_one_passing_item_per_locked_check(project):
    r = pytest_in(project, "--claims", "-vv", "-k", K_SELECT)  # -q -vv: one line per item
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{len(CHECKS)} passed" in r.stdout
    assert "claims.lock::4.1 part main [as-printed] PASSED" in r.stdout


def test_off_unless_asked(project):
    r = pytest_in(project)
    assert r.returncode == 5 and "no tests ran" in r.stdout  # pytest's "nothing collected"


def test_edited_counterexample_fails_its_item(project):
    path = project / "counterexamples/alman-song-2025/4.1/reviewer.json"
    doc = json.loads(path.read_text())
    doc["vars"]["B"] = doc["vars"]["A"]
    path.write_text(json.dumps(doc))
    r = pytest_in(project, "--claims", "-k", "4.1 or B.2")
    assert r.returncode == 1
    selected = sum(1 for key in CHECKS if key[0] in ("4.1", "B.2"))
    assert f"1 failed, {selected - 1} passed" in r.stdout
    assert "stored counterexample no longer refutes" in r.stdout and "reviewer.json" in r.stdout


def test_missing_lock_is_a_usage_error(tmp_path):
    r = pytest_in(tmp_path, "--claims")
    assert r.returncode == 4 and "verify lock" in r.stderr


def test_a_printed_node_id_reruns_that_item(project):
    """What pytest prints for an item is what one pastes to run it again."""
    node = "claims.lock::4.1 part main [as-printed]"
    r = pytest_in(project, "--claims", node, "-vv")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed" in r.stdout and f"{node} PASSED" in r.stdout
    r = pytest_in(project, "--claims", "-k", "4.1 and adversarial", "-vv")
    assert r.returncode == 0 and "1 passed" in r.stdout and "4.1 part main [adversarial] PASSED" in r.stdout


def test_paths_narrow_the_claim_tests(project):
    """A path that does not hold the lockfile narrows the run to it; one that does keeps the claims."""
    (project / "tests").mkdir()
    (project / "tests" / "test_own.py").write_text("def test_own():\n    pass\n")
    r = pytest_in(project, "--claims", "tests", "-vv")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 passed" in r.stdout and "claims.lock::" not in r.stdout
    r = pytest_in(project, "--claims", ".", "-k", "4.1 and adversarial", "-vv")
    assert r.returncode == 0 and "4.1 part main [adversarial] PASSED" in r.stdout, r.stdout + r.stderr


def test_junitxml_names_a_case_like_verify_check(project, tmp_path):
    """pytest's own --junitxml gives each claim the classname `verify check --junit` gives it."""
    import xml.etree.ElementTree as ET

    report = tmp_path / "junit.xml"
    r = pytest_in(project, "--claims", "-k", "4.1 and adversarial", f"--junitxml={report}")
    assert r.returncode == 0, r.stdout + r.stderr
    cases = ET.parse(report).getroot().iter("testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [("alman-song-2025 4_1", "4.1 part main [adversarial]")]
