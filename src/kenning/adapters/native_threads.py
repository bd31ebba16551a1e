"""numpy's BLAS on one thread per call.

OpenBLAS starts a thread per core, and after each call those threads spin waiting for the next. A
vector scan here is one matrix-vector product, bound by memory: the second thread made it no
faster, and its spinning doubled the CPU time of every recall (139 ms of CPU for 72 ms of wall time
at 10k memories on 2 cores), time that other agents' calls on the same server then waited for."""

from __future__ import annotations

import threading

_lock = threading.Lock()
_done = False


def one_blas_thread() -> None:
    """Limit this process's BLAS to one thread; the first call does it, later calls cost nothing."""
    global _done
    if _done:
        return
    with _lock:
        if _done:
            return
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")
        _done = True
