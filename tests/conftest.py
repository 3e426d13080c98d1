"""Shared fixtures: ``case``, every mapping with representative parameters, callable on a tensor; a
fresh shared-run store for the session."""

from dataclasses import dataclass, field

import pytest
import torch

from probcore.registry import get_mapping

# id -> (mapping name, parameters); temperatures and both signs included
CASES = {
    "softmax": ("softmax", {}),
    "softmax_T": ("softmax", {"temperature": 0.7}),
    "softmax_beta": ("softmax", {"beta": -1.3}),
    "taylor_2": ("taylor_softmax", {"order": 2}),
    "taylor_4_T": ("taylor_softmax", {"order": 4, "temperature": 1.6}),
    "topk": ("sparse_softmax", {"k": 2}),
    "top_p": ("sparse_softmax", {"top_p": 0.6, "temperature": 0.8}),
    "sparsemax": ("sparsemax", {}),
    "sparsemax_T": ("sparsemax", {"temperature": -0.5}),
    "entmax15": ("entmax15", {"temperature": 1.3}),
    "entmax_1.3": ("entmax", {"alpha": 1.3}),
    "entmax_3_T": ("entmax", {"alpha": 3.0, "temperature": 0.6}),
    "perturb_gumbel": ("perturbmax", {"noise": "gumbel"}),
    "perturb_normal": ("perturbmax", {"noise": "normal", "temperature": 0.8}),
    "perturb_uniform": ("perturbmax", {"noise": "uniform"}),
    "perturb_logistic": ("perturbmax", {"noise": "logistic"}),
    "gumbel_softmax": ("gumbel_softmax", {"temperature": 0.9}),
    "am_softmax": ("am_softmax", {"margin": 0.3, "scale": 4.0}),
}


@dataclass
class Case:
    """One mapping with parameters. Calling it supplies what the mapping needs besides x: a
    target (class 0 on every row) for am_softmax, a freshly seeded generator for gumbel_softmax
    (the same noise on every call); k is capped at n."""

    id: str
    name: str
    params: dict
    mapping: object = field(init=False)

    def __post_init__(self):
        self.mapping = get_mapping(self.name)

    def extra(self, x, dim=-1):
        if self.mapping.needs_target:
            shape = [size for d, size in enumerate(x.shape) if d != dim % max(x.dim(), 1)]
            return {"target": torch.zeros(shape, dtype=torch.long)}
        if self.mapping.stochastic:
            return {"generator": torch.Generator().manual_seed(0)}
        return {}

    def __call__(self, x, dim=-1, **override):
        params = {**self.params, **self.extra(x, dim), **override}
        if "k" in params and x.dim() > 0:
            params["k"] = min(params["k"], x.shape[dim % x.dim()])  # k <= n
        return self.mapping.forward(x, dim=dim, **params)


@pytest.fixture(scope="session", params=list(CASES))
def case(request):
    name, params = CASES[request.param]
    return Case(request.param, name, params)


@pytest.fixture(scope="session", autouse=True)
def fresh_runs_store(tmp_path_factory):
    """The shared heavy-run store (explorer/serving/runs.py) of this test session, a fresh file (workers
    started by the tests inherit it): no run of an earlier session is served instead of computed."""
    import os

    os.environ.setdefault("PROBCORE_RUNS_URL", f"sqlite:///{tmp_path_factory.mktemp('runs') / 'runs.sqlite3'}")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """A real redis-server of this test session (Debian's; scripts/test.sh installs it) on a free
    loopback port, its append-only file in a temporary folder; stopped at the end. Skipped only
    where redis-server is not installed."""
    import shutil

    from bench.browser import free_port
    from serve.redis_server import RedisServer

    if not shutil.which("redis-server") and not __import__("os").path.exists("/usr/bin/redis-server"):
        pytest.skip("redis-server is not installed (apt-get install -y redis-server)")
    with RedisServer(tmp_path_factory.mktemp("redis"), free_port()) as server:
        yield server


@pytest.fixture(params=["sqlite", "redis"])
def backend(request):
    """Each store test runs against both backends: "sqlite" (one machine) and "redis" (several)."""
    return request.param


@pytest.fixture()
def redis_url(request):
    """The URL of the session's Redis, emptied for this test (its own keys only)."""
    server = request.getfixturevalue("redis_server")
    if server.proc.poll() is not None:  # a test stopped it: start it again
        server.start()
    import redis

    redis.Redis.from_url(server.url).flushdb()
    return server.url
