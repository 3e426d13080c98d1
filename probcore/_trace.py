"""Whether probcore is being traced: by torch.compile, or by a torch.func transform (vmap, grad,
vjp, jvp, jacrev, jacfwd). There tensor values cannot steer Python control flow (no host syncs such
as ``bool(t.any())``) and out= / in-place writes into plain scratch tensors fail, so callers take
their paths built from plain torch operations instead (same results; see README, "torch.func and
torch.compile")."""
from __future__ import annotations

import torch


def traced(*values) -> bool:
    """True under torch.compile or when one of the values is a functorch-wrapped tensor."""
    if torch.compiler.is_compiling():
        return True
    return any(isinstance(v, torch.Tensor) and torch._C._functorch.is_functorch_wrapped_tensor(v) for v in values)
