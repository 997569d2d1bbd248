import pytest
from hypothesis import settings

from lemmas import REGISTRY

# every property test draws the same examples on every run and machine, and no example found on
# one machine is replayed on another: the suite is deterministic (its seeds are in the tests)
settings.register_profile("deterministic", derandomize=True, database=None)
settings.load_profile("deterministic")


@pytest.fixture
def registry():
    return REGISTRY


def check_of(claim_id, part=None, reading=None):
    checks = REGISTRY.get(claim_id).checks(reading=reading, part=part)
    assert len(checks) == 1, [c.key for c in checks]
    return checks[0]


@pytest.fixture(autouse=True, scope="session")
def no_proofs_unless_asked():
    """Commands prove surviving checks for 10 s each by default; tests that are not about proofs
    switch them off (a test about proofs passes --prove-time itself, which wins)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("VERIFY_PROVE_TIME", "0")
        yield
