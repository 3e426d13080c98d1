"""Helpers shared by several test modules (test modules never import each other): the
threshold tests' inputs and tolerances, two numpy implementations, and the explorer under
``streamlit.testing.v1.AppTest`` (open a page with URL parameters, read its figures)."""

from __future__ import annotations

import base64
import contextlib
import json
import sys
import types
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import torch

from probcore.registry import MAPPINGS
from views.registry import PAGES as REGISTRY

if TYPE_CHECKING:  # imported when needed: the numeric tests do not pay for Streamlit's import
    from streamlit.testing.v1 import AppTest

INF = float("inf")

# Inputs and tolerances of the threshold tests (tests/test_threshold.py, test_fused.py, test_functional.py)

TOL = {torch.float32: 1e-6, torch.float64: 1e-12}


def close(fast, ref, factor=1):
    tol = factor * TOL[fast.dtype]
    torch.testing.assert_close(fast, ref, rtol=tol, atol=tol)


def make(kind, shape, dtype, seed=0):
    """Test inputs: random at several scales, peaked, tied, partly / fully -inf, huge, constant."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(shape, generator=g, dtype=dtype)
    if kind == "small":
        return x * 0.01
    if kind == "wide":
        return x * 10
    if kind == "peaked":
        x[..., :3] += 20
        return x
    if kind == "tied":
        return torch.randint(0, 3, shape, generator=g).to(dtype)
    if kind == "masked":
        x[torch.rand(shape, generator=g) < 0.6] = -INF
        x[..., -1] = 0.5  # at least one finite entry per row
        return x
    if kind == "fully_masked":
        x[::2] = -INF
        return x
    if kind == "huge":
        return x * 3e4
    if kind == "constant":
        return torch.full(shape, 7.0, dtype=dtype)
    return x


KINDS = ("random", "small", "wide", "peaked", "tied", "masked", "fully_masked", "huge", "constant")
SHAPES = ((5, 1), (4096, 1), (4, 2), (2048, 3), (6, 7), (600, 7), (64, 100), (16, 256), (4, 1000), (2, 32000))


# numpy implementations, right and subtly wrong (tests/test_check.py, test_page_check.py)


def softmax_np(x, t=1.0):
    z = x / t
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def sparsemax_np(x, off_by=0):
    """Sparsemax by sorting; off_by shifts the support size K used for tau (the bug under test)."""
    out = []
    for z in np.atleast_2d(x):
        zs = np.sort(z)[::-1]
        k = np.arange(1, len(z) + 1)
        cs = np.cumsum(zs)
        K = k[1 + k * zs > cs].max() + off_by
        out.append(np.maximum(z - (cs[K - 1] - 1) / K, 0))
    return np.array(out)


# The explorer under AppTest (tests/test_app.py, the test_page_*.py modules and others)

APP = str(Path(__file__).resolve().parents[1] / "app.py")
CORE_PAGES = tuple(page.script for page in REGISTRY.values() if page.section == "nav.core")
TOPIC_PAGES = tuple(page.script for page in REGISTRY.values() if page.section != "nav.core" and page.in_lessons)
PAGES = CORE_PAGES + TOPIC_PAGES
TIMEOUT = 90  # seconds per script run (AppTest's default of 3 s is too short on a loaded machine)


def run_app(page: str = PAGES[0], **params) -> AppTest:
    """A fresh session opened with query parameters ``params`` on ``page``."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.query_params.update({k: str(v) for k, v in params.items()})
    at.run()
    if page != PAGES[0]:
        at.switch_page(page).run()
    return at


def _decode(obj):
    """Plotly JSON with its base64 typed arrays ({"bdata", "dtype", "shape"}) as plain lists."""
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj:
            array = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=obj["dtype"])
            shape = obj.get("shape")
            if shape:
                array = array.reshape([int(s) for s in str(shape).split(",")])
            return array.tolist()
        return {k: _decode(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_decode(v) for v in obj]
    return obj


def figures(at: AppTest) -> list[dict]:
    return [_decode(json.loads(chart.proto.spec)) for chart in at.get("plotly_chart")]


def figure(at: AppTest, title_start: str) -> dict:
    """The first figure whose title starts with ``title_start``."""
    found = [f for f in figures(at) if f["layout"]["title"]["text"].startswith(title_start)]
    assert found, (title_start, [f["layout"]["title"]["text"] for f in figures(at)])
    return found[0]


def trace(fig: dict, name: str, **match) -> dict:
    found = [tr for tr in fig["data"] if tr.get("name") == name and all(tr.get(k) == v for k, v in match.items())]
    assert found, f"no trace {name!r} {match} in {[tr.get('name') for tr in fig['data']]}"
    return found[0]


def label(name: str) -> str:
    return MAPPINGS[name].label


def assert_ok(at: AppTest, errors: bool = False) -> None:
    """No traceback; inline errors only where expected; at least one chart."""
    assert not at.exception, [e.value for e in at.exception]
    if not errors:
        assert not at.error, [e.value for e in at.error]
    assert at.get("plotly_chart")


def assert_readable(fig: dict) -> None:
    """Axis titles on every used axis, a legend (or a colour bar) and explicit trace colours."""
    layout = fig["layout"]
    axes = [k for k in layout if k.startswith(("xaxis", "yaxis"))]
    ternaries = [k for k in layout if k.startswith("ternary")]
    assert axes or ternaries
    for key in axes:
        if layout[key].get("visible", True) and layout[key].get("anchor") != "free":
            assert layout[key].get("title", {}).get("text"), f"{key} has no title"
    for key in ternaries:
        for axis in ("aaxis", "baxis", "caxis"):
            assert layout[key][axis]["title"]["text"]
    named = [tr for tr in fig["data"] if tr.get("name") and tr.get("showlegend", True)]
    colour_bar = "coloraxis" in layout or any("colorbar" in tr for tr in fig["data"])
    assert named or colour_bar
    assert layout.get("showlegend", True) is not False


# The shared stores (tests/test_rooms.py, test_runs.py, test_hostile_shares.py): both backends


def room_store(backend: str, tmp_path: Path, redis_url: str = "", clock=None):
    """A room store of ``backend`` ("sqlite": a file in tmp_path; "redis": the test's Redis);
    two calls with the same arguments share their rooms, as two worker processes do."""
    import time

    from explorer.classroom import rooms

    if backend == "sqlite":
        return rooms.SQLiteRooms(tmp_path / "rooms.sqlite3", clock=clock or time.time)
    from explorer.classroom.rooms_redis import RedisRooms

    return RedisRooms(redis_url, clock=clock or time.time)


def stored_bytes(store) -> bytes:
    """Everything a store holds, raw: the SQLite file and its WAL, or every Redis key and value."""
    path = getattr(store, "path", None)
    if path is not None:
        return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
    r, out = store.redis, []
    for key in r.scan_iter():
        kind = r.type(key)
        out.append(key)
        if kind == b"string":
            out.append(r.get(key))
        elif kind == b"hash":
            out += [part for pair in r.hgetall(key).items() for part in pair]
        elif kind == b"set":
            out += sorted(r.smembers(key))
        elif kind == b"zset":
            out += r.zrange(key, 0, -1)
    return b"\n".join(out)


@contextlib.contextmanager
def plain_main():
    """A bare __main__ while processes are spawned: after an AppTest, __main__ is the last script
    Streamlit ran, which spawn would run again in the child."""
    main, sys.modules["__main__"] = sys.modules["__main__"], types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def perturbmax_nested(x, noise: str, n_max: int, seed: int) -> np.ndarray:
    """Perturb's nested Monte Carlo by its definition: one generator seeded with ``seed`` draws the
    blocks 10, 10, 30, ... (the differences of perturb_compute.SAMPLE_GRID up to n_max), one
    perturbmax_sample each; row k is the frequency after N_k draws."""
    import probcore
    from views.perturb import compute as perturb_compute

    generator = torch.Generator().manual_seed(seed)
    xt = torch.tensor(x, dtype=torch.float64)
    counts, done, rows = np.zeros(len(x)), 0, []
    for m in [v for v in perturb_compute.SAMPLE_GRID if v <= n_max]:
        freq = probcore.perturbmax_sample(xt, noise=noise, n_samples=m - done, generator=generator).numpy()
        counts += np.rint(freq * (m - done))
        done = m
        rows.append(counts / m)
    return np.array(rows)
