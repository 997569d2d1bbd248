"""The generate phase: structured random batches from the sampler, adapted between rounds."""

from __future__ import annotations


def run_generate_chunk(search, chunk, rng) -> None:
    """One batch: a quarter of the time at the dims where earlier rounds came closest."""
    if chunk.hint and rng.random() < 0.25:
        dims = dict(chunk.hint[int(rng.integers(len(chunk.hint)))])
    else:
        dims = search.sampler.pick_dims(rng)
    search.evaluate(search.sampler.sample(dims, rng, chunk.size), dims)
