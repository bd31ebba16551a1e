"""Kenning: a local-first long-term memory server for AI agents."""

from kenning.core.errors import (
    BackendUnavailable,
    ConflictError,
    ContractBroken,
    InvalidInput,
    KenningError,
    NotFound,
)

__version__ = "0.1.0"

__all__ = [
    "BackendUnavailable",
    "ConflictError",
    "ContractBroken",
    "InvalidInput",
    "KenningError",
    "NotFound",
    "__version__",
]
