"""Claims of Alman & Song, "Only Large Weights (And Not Skip Connections) Can Prevent the
Perils of Rank Collapse" (arXiv 2505.16284, ICLR 2026 submission)."""

PAPER = "alman-song-2025"
PAPER_TITLE = (
    "Alman & Song, Only Large Weights (And Not Skip Connections) Can Prevent the Perils of "
    "Rank Collapse (arXiv 2505.16284)"
)
