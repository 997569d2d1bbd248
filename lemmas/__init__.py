"""The claim packs shipped with the verifier.  ``REGISTRY`` holds every claim."""

from verifier.registry import Registry

REGISTRY = Registry.from_package("lemmas")
