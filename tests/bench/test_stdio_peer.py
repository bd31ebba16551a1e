"""The benches' stdio client drives a real `kenning serve`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from kenning.bench.stdio_peer import StdioPeer


def test_a_peer_remembers_and_recalls_through_a_spawned_server(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "KENNING_STORAGE__DB_PATH": str(tmp_path / "peer.db"),
        "KENNING_EMBEDDINGS__PROVIDER": "none",
    }
    peer = StdioPeer(env)
    try:
        peer.call("remember", {"content": "The billing service stores invoices in PostgreSQL."})
        found = peer.call("recall", {"query": "billing invoices", "limit": 3})
        assert "PostgreSQL" in json.dumps(found["structuredContent"])
        with pytest.raises(RuntimeError, match="recall failed"):
            peer.call("recall", {"query": "x", "limit": 1000})
    finally:
        peer.close()
