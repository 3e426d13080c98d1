"""explorer.compute.memo: the process-wide cache every session of a worker shares. It computes
once per argument set, keeps at most max_entries results, and hands out results nobody can change
(a session that wrote into a shared array would change every other session's numbers)."""

import numpy as np
import pytest

from explorer import compute
from views.simplex import compute as simplex_compute


def test_computes_once_per_arguments_and_keeps_at_most_max_entries():
    calls = []

    @compute.memo(2)
    def square(v: float) -> float:
        calls.append(v)
        return v * v

    assert [square(2.0), square(2.0), square(3.0)] == [4.0, 4.0, 9.0]
    assert calls == [2.0, 3.0]
    square(4.0)  # a third argument set: the least recently used (2.0) goes
    assert square.cache_info().currsize == 2
    square(2.0)
    assert calls == [2.0, 3.0, 4.0, 2.0]


def test_results_are_immutable_all_the_way_down():
    @compute.memo(4)
    def result(n: int):
        return {"p": np.ones(n), "pair": (np.zeros(n), [np.arange(n)]), "label": "x"}

    r = result(3)
    with pytest.raises(ValueError):
        r["p"][0] = 5.0
    with pytest.raises(ValueError):
        r["pair"][0][:] = 1.0
    with pytest.raises(ValueError):
        r["pair"][1][0][0] = 7
    with pytest.raises(TypeError):
        r["p"] = np.zeros(3)
    assert isinstance(r["pair"][1], tuple)
    assert result(3) is r and float(result(3)["p"].sum()) == 3.0


def test_the_pages_grids_are_shared_read_only():
    image = simplex_compute.simplex_image("softmax", (), 3.0, 9, 0, 0)
    assert not image.flags.writeable
    p = compute.probabilities("sparsemax", (1.2, 0.3, -0.5), ())
    assert not p.flags.writeable and compute.probabilities("sparsemax", (1.2, 0.3, -0.5), ()) is p
