"""Experiments that show what the paper's theorems say about real networks: layer collapse
(Theorem D.1) measured on small SANs, and Dong et al.'s rank collapse at BERT's shape.

Engine-style: the runs return frozen dataclasses of numbers; ``plots`` draws them.
"""

from .layer_collapse import LayerCollapseConfig, LayerCollapseResult, run_layer_collapse
from .rank_collapse import RankCollapseConfig, RankCollapseResult, run_rank_collapse

__all__ = [
    "LayerCollapseConfig", "LayerCollapseResult", "run_layer_collapse",
    "RankCollapseConfig", "RankCollapseResult", "run_rank_collapse",
]
