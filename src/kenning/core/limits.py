"""Field limits for everything a caller can send. One table, enforced in core/validation.py."""

from __future__ import annotations

from typing import Final

CONTENT_MAX_CHARS: Final = 16_000
TAG_MAX_CHARS: Final = 64
TAGS_MAX: Final = 32
ENTITY_MAX_CHARS: Final = 128
ENTITIES_MAX: Final = 32
CONTEXT_MAX_CHARS: Final = 2_000
SOURCE_MAX_CHARS: Final = 1_000
NAME_MAX_CHARS: Final = 128  # namespace, agent_id, subject, session_id
QUERY_MAX_CHARS: Final = 2_000
RECALL_LIMIT_MAX: Final = 100
OFFSET_MAX: Final = 1_000
TOKEN_BUDGET_MIN: Final = 50
TOKEN_BUDGET_MAX: Final = 50_000
METADATA_MAX_BYTES: Final = 8_000
BATCH_MAX: Final = 1_000
