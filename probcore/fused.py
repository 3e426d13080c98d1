"""The fused path of sparsemax / entmax15 / entmax on the CPU (``fused=None``, the default: where
it applies; ``fused=True`` / ``False``: forced on / off).

The threshold and p (forward), and the backward dz = s (g - <g, s> / sum s), s = p^(2 - alpha) on
the support, from p (or, for a general alpha, s = p / (c - tau) from the input and the forward's
per-row max and tau: no powers), run in a small C kernel (_fused_kernel.c) that works on one row at a time while it sits in L1: on short rows
(attention-sized, n of a few hundred) the eager path spends its time dispatching ~100 torch
operations, each a pass over memory. It takes a float alpha in [1.25, 2] (other alphas take the
eager path: below, probcore's smooth solver for alpha near 1; above, the exact solver in the
units of p). The results are the eager path's (same thresholds, exact to the same 1e-6 / 1e-12
against the sort / bisection references); rows whose iteration does not end in the kernel's
bound are recomputed eagerly.

The kernel is compiled when probcore is built or installed (setup.py: the extension
``probcore._fused_kernel``, a plain shared library loaded here through ctypes): nothing is compiled
or written at run time, no compiler is needed. It is built for the target's baseline instruction
set with an AVX2 + FMA clone of its row functions that the loader picks where the CPU has them. Its
OpenMP threads (``torch.get_num_threads()`` of them) come from libgomp.so.1, the copy torch has
already loaded. Where the compiled kernel is absent (probcore installed without a C compiler, or a
checkout without ``python setup.py build_ext --inplace``), the first call that would use it warns
once and every call takes the eager path.
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import threading
import warnings
from pathlib import Path

import torch

_NAME = "_fused_kernel"
_TYPES = {torch.float32: "f", torch.float64: "d"}

_lock = threading.Lock()
_library: ctypes.CDLL | bool | None = None  # the loaded kernel, False once loading it failed


def kernel_path() -> Path | None:
    """The compiled kernel beside this module (probcore/_fused_kernel<extension suffix>), or None."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = Path(__file__).with_name(_NAME + suffix)
        if path.is_file():
            return path
    return None


def _load() -> ctypes.CDLL:
    """Loads the compiled kernel and declares its functions; OSError when it is absent or unloadable."""
    path = kernel_path()
    if path is None:
        raise OSError(
            f"no compiled kernel ({_NAME}{importlib.machinery.EXTENSION_SUFFIXES[0]}) in "
            f"{Path(__file__).parent}: probcore was installed without building it (no C compiler?); "
            "reinstall it where gcc is present, or run `python setup.py build_ext --inplace` in a checkout"
        )
    library = ctypes.CDLL(str(path))
    for suffix in _TYPES.values():
        forward, backward = getattr(library, f"entmax_forward_{suffix}"), getattr(library, f"entmax_backward_{suffix}")
        forward.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int64, ctypes.c_int64, ctypes.c_double, ctypes.c_int]
        backward.argtypes = [ctypes.c_void_p] * 5 + [ctypes.c_int64, ctypes.c_int64, ctypes.c_double, ctypes.c_int]
        forward.restype, backward.restype = ctypes.c_int64, None
    return library


def available() -> bool:
    """True when the compiled kernel is loaded (loading it now if needed); False, after one
    RuntimeWarning, when it is absent (the fused calls then run the eager path)."""
    global _library
    if _library is None:
        with _lock:
            if _library is None:
                try:
                    _library = _load()
                except (OSError, AttributeError) as error:
                    _library = False
                    warnings.warn(
                        f"probcore fused path unavailable, using the eager path instead: {error}",
                        RuntimeWarning,
                        stacklevel=4,
                    )
    return bool(_library)


def applies(z: torch.Tensor) -> bool:
    """Whether the kernel can take z (rows along the last dim) as it is."""
    return z.device.type == "cpu" and z.dtype in _TYPES


def forward(
    z: torch.Tensor, alpha: float, stats: bool = False
) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
    """(p, status, stats) of entmax_alpha along the last dim of the CPU tensor z (float32/64):
    status (rows,) int32 is 1 on rows the kernel left to the eager path, None when there are none;
    stats, where asked for and alpha is not 2 or 1.5, (rows, 2) of z's dtype: each row's max m and
    tau (c = (z - m) (alpha - 1), p = (c - tau)_+^q / total), NaN on rows the kernel did not solve
    (status 1, NaN / +inf or fully -inf rows) or whose total^(alpha - 1) it did not certify within
    16 eps of 1, for backward's s = p / (c - tau); else None."""
    rows = _rows(z.detach())
    p = torch.empty_like(rows)
    status = torch.empty(rows.shape[0], dtype=torch.int32)
    row_stats = torch.empty(rows.shape[0], 2, dtype=rows.dtype) if stats and alpha not in (1.5, 2) else None
    left = getattr(_library, f"entmax_forward_{_TYPES[z.dtype]}")(
        rows.data_ptr(),
        p.data_ptr(),
        status.data_ptr(),
        None if row_stats is None else row_stats.data_ptr(),
        rows.shape[0],
        rows.shape[1],
        float(alpha),
        torch.get_num_threads(),
    )
    return (p if p.dim() == z.dim() else p.view(z.shape)), status if left else None, row_stats


def backward(
    g: torch.Tensor, p: torch.Tensor, alpha: float, z: torch.Tensor | None = None, stats: torch.Tensor | None = None
) -> torch.Tensor:
    """g^T J = s * (g - <g, s> / sum s) along the last dim, s = p^(2 - alpha) on the support of
    p, 0 off it (0 on rows without support, NaN on NaN rows). Given the forward's input z and its
    stats, rows with finite stats take s = p / (c - tau) instead, no powers: p^(2 - alpha) times
    total^(1 - alpha), within 16 eps of 1 where the forward gave stats; rows with NaN stats s from p."""
    g, rows = _rows(g), _rows(p)
    x = None if z is None or stats is None else _rows(z.detach())
    out = torch.empty_like(rows)
    getattr(_library, f"entmax_backward_{_TYPES[p.dtype]}")(
        g.data_ptr(),
        rows.data_ptr(),
        out.data_ptr(),
        None if x is None else x.data_ptr(),
        None if x is None or stats is None else stats.data_ptr(),
        rows.shape[0],
        rows.shape[1],
        float(alpha),
        torch.get_num_threads(),
    )
    return out if out.dim() == p.dim() else out.view(p.shape)


def _rows(z: torch.Tensor) -> torch.Tensor:
    """z as contiguous rows (rows, n) along its last dim: z itself when it already is."""
    return z if z.dim() == 2 and z.is_contiguous() else z.reshape(-1, z.shape[-1]).contiguous()
