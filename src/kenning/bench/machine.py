"""Describe the machine a benchmark ran on, so figures are never quoted without it."""

from __future__ import annotations

import os
import platform
import sqlite3
from pathlib import Path
from typing import Any


def machine_info() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory_gib = None
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        first = meminfo.read_text().splitlines()[0].split()
        memory_gib = round(int(first[1]) / 1024 / 1024, 1)
    import numpy

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": memory_gib,
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "numpy": numpy.__version__,
    }


def describe(info: dict[str, Any]) -> str:
    return (
        f"{info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB, {info['os']}, "
        f"Python {info['python']}, SQLite {info['sqlite']}, numpy {info['numpy']}"
    )
