"""The user's alias dictionary: `aliases.toml` in the data directory.

[aliases]
PostgreSQL = ["postgres", "pg", "psql"]
"GitHub Actions" = ["gha"]
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from kenning.core.entities import AliasDictionary
from kenning.core.errors import InvalidInput


def load_aliases(path: Path) -> AliasDictionary:
    """The dictionary in `path`, an empty one if the file does not exist, InvalidInput if it is malformed."""
    if not path.is_file():
        return AliasDictionary()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput("aliases", f"{path} is not valid TOML: {exc}") from None
    table = data.get("aliases", {})
    if not isinstance(table, dict):
        raise InvalidInput("aliases", f"{path}: [aliases] must be a table of name = [aliases]")
    entries: dict[str, list[str]] = {}
    for name, aliases in table.items():
        if not isinstance(aliases, list) or not all(isinstance(a, str) and a.strip() for a in aliases):
            raise InvalidInput("aliases", f"{path}: {name!r} must map to a list of non-empty strings")
        entries[name] = aliases
    return AliasDictionary.from_mapping(entries)
