"""Generated reference text (settings table), checked against the README by the test suite."""

from __future__ import annotations

from pydantic import BaseModel

from kenning.settings import Settings


def settings_table() -> str:
    lines = ["| environment variable | TOML key | default | meaning |", "|---|---|---|---|"]
    for section, field in Settings.model_fields.items():
        model = field.annotation
        assert isinstance(model, type) and issubclass(model, BaseModel)
        for name, spec in model.model_fields.items():
            default = spec.get_default(call_default_factory=True)
            if default is None and name == "data_dir":
                default = "per-user data dir"
            lines.append(
                f"| `KENNING_{section.upper()}__{name.upper()}` | `{section}.{name}` | `{default}` | "
                f"{spec.description} |"
            )
    return "\n".join(lines)
