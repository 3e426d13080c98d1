"""Builds probcore's fused CPU kernel (probcore/_fused_kernel.c) when the package is built or
installed (wheel, ``pip install .``, ``pip install -e .``). Everything else is in pyproject.toml.

The kernel is a plain shared library (no Python API), loaded by probcore/fused.py through ctypes.
It is compiled for the target's baseline instruction set, never -march=native: on x86-64 the hot
functions carry a second, x86-64-v3 (AVX2 + FMA) clone that the dynamic loader picks only on CPUs
that have it (see the head of _fused_kernel.c). The extension is optional: where it cannot be built
(no C compiler), the install goes on without it and probcore's fused calls warn once and take the
eager path.
"""

import platform
import sys

from setuptools import Extension, setup


def fused_kernel() -> Extension:
    compile_args = ["-O3", "-fno-math-errno", "-fno-trapping-math", "-std=c99"]
    link_args, libraries = [], []
    if sys.platform.startswith("linux"):
        # OpenMP (libgomp.so.1: torch's own copy when torch is imported first) and glibc's vector math
        compile_args.append("-fopenmp")
        link_args.append("-fopenmp")
        if platform.machine() in ("x86_64", "AMD64"):
            libraries.append("mvec")
        libraries.append("m")
    return Extension(
        "probcore._fused_kernel",
        sources=["probcore/_fused_kernel.c"],
        depends=["probcore/_fused_kernel_rows.h"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        libraries=libraries,
        optional=True,
    )


setup(ext_modules=[fused_kernel()])
