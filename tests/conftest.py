import pytest

from lemmas import REGISTRY


@pytest.fixture
def registry():
    return REGISTRY


def check_of(claim_id, part=None, reading=None):
    checks = REGISTRY.get(claim_id).checks(reading=reading, part=part)
    assert len(checks) == 1, [c.key for c in checks]
    return checks[0]
