"""Whether probcore is being traced: by torch.compile, or inside a torch.func transform (vmap, grad,
vjp, jvp, jacrev, jacfwd). There tensor values cannot steer Python control flow (no host syncs such
as ``bool(t.any())``), out= / in-place writes into plain scratch tensors fail, and custom autograd
Functions need a vmap rule, so callers take their paths built from plain torch operations instead
(same results; see README, "torch.func and torch.compile")."""

from __future__ import annotations

import torch


def traced() -> bool:
    """True under torch.compile or while a torch.func transform is active."""
    return torch.compiler.is_compiling() or torch._C._are_functorch_transforms_active()
