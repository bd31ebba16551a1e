"""numpy's BLAS runs on one thread once the store's vector matrix exists (its spare threads spin)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

_PROBE = """
import json
import numpy
from threadpoolctl import threadpool_info

def blas():
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]

before = blas()
from kenning.adapters.vector_matrix import VectorMatrix
VectorMatrix(dim=4)
print(json.dumps({"before": before, "after": blas()}))
"""


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="BLAS starts one thread on a one-core machine anyway")
def test_a_vector_matrix_limits_blas_to_one_thread() -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True, timeout=60
    )
    found = json.loads(out.stdout)
    assert found["before"] and max(found["before"]) > 1  # the default this guards against
    assert found["after"] == [1] * len(found["before"])
