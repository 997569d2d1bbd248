"""attention-classics: published statements on attention, softmax and normalisation.

One module per statement; each holds ``claim = Claim(...)`` with the statement as printed,
where it is printed, how it is read, a hand derivation and the verdict the verifier gives.
The mathematics comes from :mod:`verifier.library`, written once against ``ctx``.
"""

PACK = "attention-classics"
