"""The opt-in fused path of sparsemax / entmax15 / entmax on the CPU: ``fused=True``.

``probcore.sparsemax(x, fused=True)``, ``probcore.entmax15(x, fused=True)`` and
``probcore.entmax(x, alpha=a, fused=True)`` (a float alpha in [1.25, 2]; other alphas take the eager
path: below, probcore's smooth solver for alpha near 1; above, p = d^(1/(alpha-1)) is ill-conditioned
near the support's edge and the eager solver is the one held to the references) run the threshold, p, s = p^(2 - alpha)
and the backward dz = s (g - <g, s> / sum s) in a small C kernel (_fused_kernel.c) that works on one
row at a time while it sits in L1: on short rows (attention-sized, n of a few hundred) the eager path
spends its time dispatching ~100 torch operations, each a pass over memory. The results are the
eager path's (same thresholds, exact to the same 1e-6 / 1e-12 against the sort / bisection
references); rows whose iteration does not end in the kernel's bound are recomputed eagerly.

The kernel is compiled once per machine with the system C compiler ($CC, else gcc; OpenMP and
glibc's vector math) into the cache directory ($PROBCORE_CACHE, else ~/.cache/probcore), which
takes a few seconds (``build()`` returns the time). Where that fails (no compiler), the first fused call
warns once and every fused call runs the eager path. The fused path covers contiguous float32 /
float64 rows on the CPU; elsewhere (CUDA, inside torch.func transforms or torch.compile,
create_graph) the call takes the eager or transform path of the same function, with the same results.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
import warnings
from pathlib import Path

import torch

_SOURCE = Path(__file__).with_name("_fused_kernel.c")
_FLAGS = ("-O3", "-march=native", "-fopenmp", "-fno-math-errno", "-fno-trapping-math", "-shared", "-fPIC")
_LIBS = ("-lmvec", "-lm")
_TYPES = {torch.float32: ("f", "float", "double", "expf", "logf", "FLT_EPSILON"),
          torch.float64: ("d", "double", "double", "exp", "log", "DBL_EPSILON")}

_lock = threading.Lock()
_library = None  # the loaded kernel, False once building it failed
compile_seconds: float | None = None  # time the last build() spent compiling (None: loaded from the cache)


def _c_source() -> str:
    """The kernel's C text with its template instantiated for float and double."""
    head, template = _SOURCE.read_text().split("/* @TEMPLATE@ */")
    parts = [head, "#include <float.h>\n"]
    for suffix, t, acc, exp, log, eps in _TYPES.values():
        parts.append(f"#define T {t}\n#define A {acc}\n#define EXP {exp}\n#define LOG {log}\n#define EPS {eps}\n")
        parts.append(template.replace("_S(", f"_{suffix}("))
        parts.append("#undef T\n#undef A\n#undef EXP\n#undef LOG\n#undef EPS\n")
    return "".join(parts)


def _cache_dir() -> Path:
    return Path(os.environ.get("PROBCORE_CACHE") or Path.home() / ".cache" / "probcore")


def _compile(source: str, target: Path) -> None:
    """Compiles source into the shared library target (atomically: concurrent builds are safe)."""
    compiler = os.environ.get("CC", "gcc")
    if shutil.which(compiler) is None:
        raise RuntimeError(f"no C compiler: {compiler!r} is not on PATH (set CC)")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        c_file, so_file = Path(tmp) / "kernel.c", Path(tmp) / "kernel.so"
        c_file.write_text(source)
        done = subprocess.run([compiler, *_FLAGS, str(c_file), "-o", str(so_file), *_LIBS],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{compiler} failed: {done.stderr.strip()[-2000:]}")
        os.replace(so_file, target)


def build(force: bool = False) -> float:
    """Compiles (or, unless force, loads from the cache) the kernel; returns the seconds it took.
    Raises RuntimeError when it cannot be built."""
    global _library, compile_seconds
    start = time.perf_counter()
    source = _c_source()
    key = hashlib.sha256("\0".join([source, os.environ.get("CC", "gcc"), *_FLAGS, *_LIBS]).encode()).hexdigest()
    target = _cache_dir() / f"fused-{key[:16]}.so"
    with _lock:
        compile_seconds = None
        if force or not target.exists():
            _compile(source, target)
            compile_seconds = time.perf_counter() - start
        library = ctypes.CDLL(str(target))
        for suffix in ("f", "d"):
            forward, backward = getattr(library, f"entmax_forward_{suffix}"), getattr(library, f"entmax_backward_{suffix}")
            forward.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int64, ctypes.c_int64, ctypes.c_double, ctypes.c_int]
            backward.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int64, ctypes.c_int64, ctypes.c_int]
            forward.restype = backward.restype = None
        _library = library
    return time.perf_counter() - start


def available() -> bool:
    """True when the kernel is built (building it now if needed); False, after one warning, when it
    cannot be (the fused calls then run the eager path)."""
    global _library
    if _library is None:
        try:
            build()
        except (RuntimeError, OSError) as error:
            _library = False
            warnings.warn(f"probcore fused path unavailable, using the eager path instead: {error}",
                          RuntimeWarning, stacklevel=3)
    return bool(_library)


def applies(z: torch.Tensor) -> bool:
    """Whether the kernel can take z (rows along the last dim) as it is."""
    return z.device.type == "cpu" and z.dtype in _TYPES


def forward(z: torch.Tensor, alpha: float):
    """(p, s, status) of entmax_alpha along the last dim of the CPU tensor z (float32/64);
    status (rows,) int32 is 1 on rows the kernel left to the eager path."""
    rows = z.detach().reshape(-1, z.shape[-1]).contiguous()
    p, s = torch.empty_like(rows), torch.empty_like(rows)
    status = torch.empty(rows.shape[0], dtype=torch.int32)
    suffix = _TYPES[z.dtype][0]
    getattr(_library, f"entmax_forward_{suffix}")(
        rows.data_ptr(), p.data_ptr(), s.data_ptr(), status.data_ptr(), rows.shape[0], rows.shape[1],
        float(alpha), torch.get_num_threads())
    return p.view(z.shape), s.view(z.shape), status


def backward(g: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """s * (g - <g, s> / sum s) along the last dim (0 on rows where sum s = 0)."""
    g = g.reshape(-1, s.shape[-1]).contiguous()
    rows = s.reshape(-1, s.shape[-1])
    out = torch.empty_like(rows)
    getattr(_library, f"entmax_backward_{_TYPES[s.dtype][0]}")(
        g.data_ptr(), rows.data_ptr(), out.data_ptr(), rows.shape[0], rows.shape[1], torch.get_num_threads())
    return out.view(s.shape)
