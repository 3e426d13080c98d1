"""probcore: softmax and its alternatives (sparse, entmax, Taylor, perturb-max, ...) for PyTorch,
with closed-form gradients and Jacobians, numpy references and a registry describing them all."""

__version__ = "0.1.0"  # the single source: pyproject.toml reads it

from probcore import losses, nn, reference
from probcore.functional import (
    am_softmax,
    entmax,
    entmax15,
    gumbel_softmax,
    perturbmax,
    perturbmax_sample,
    smooth_max,
    softmax,
    sparse_softmax,
    sparsemax,
    taylor_softmax,
)
from probcore.jacobian import jacobian
from probcore.registry import MAPPINGS, Mapping, Param, get_mapping

__all__ = [
    "__version__",
    "softmax",
    "smooth_max",
    "taylor_softmax",
    "sparse_softmax",
    "sparsemax",
    "entmax15",
    "entmax",
    "am_softmax",
    "perturbmax",
    "perturbmax_sample",
    "gumbel_softmax",
    "jacobian",
    "MAPPINGS",
    "Mapping",
    "Param",
    "get_mapping",
    "losses",
    "nn",
    "reference",
]
