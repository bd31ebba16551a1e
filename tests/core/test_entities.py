from __future__ import annotations

from pathlib import Path

import pytest

from kenning.adapters.alias_file import load_aliases
from kenning.core.entities import AliasDictionary, extract
from kenning.core.errors import InvalidInput

ALIASES = AliasDictionary.from_mapping({"PostgreSQL": ["postgres", "pg"], "GitHub Actions": ["gha"]})


def test_aliases_normalise_case_insensitively_and_keep_unknown_names() -> None:
    assert ALIASES.normalise("Postgres") == "PostgreSQL"
    assert ALIASES.normalise("  GHA ") == "GitHub Actions"
    assert ALIASES.normalise("Redis") == "Redis"


def test_extraction_from_text_tags_and_caller() -> None:
    found = extract(
        "We moved CI from gha to Buildkite; the pg cluster stays.", ["ent:Kafka", "ops"], ["redis"], ALIASES
    )
    assert found == ["redis", "PostgreSQL", "GitHub Actions", "Kafka", "CI", "Buildkite"]
    assert extract("数据库是PostgreSQL，缓存用Redis", [], [], ALIASES) == ["PostgreSQL", "Redis"]
    assert extract("The user prefers tabs. Monday is release day.", [], [], ALIASES) == []


def test_alias_file_loads_and_reports_errors_naming_the_file(tmp_path: Path) -> None:
    good = tmp_path / "aliases.toml"
    good.write_text('[aliases]\nPostgreSQL = ["postgres", "pg"]\n')
    assert load_aliases(good).normalise("pg") == "PostgreSQL"
    assert load_aliases(tmp_path / "absent.toml").normalise("pg") == "pg"
    broken = tmp_path / "broken.toml"
    broken.write_text('[aliases]\nPostgreSQL = ["pg",\n')
    with pytest.raises(InvalidInput, match=r"broken\.toml is not valid TOML"):
        load_aliases(broken)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('[aliases]\nPostgreSQL = "pg"\n')
    with pytest.raises(InvalidInput, match="list of non-empty strings"):
        load_aliases(wrong)


def test_adjacent_capitalised_words_are_one_name_and_days_are_none() -> None:
    none = AliasDictionary()
    assert extract("We moved CI to GitHub Actions last week", [], [], none) == ["CI", "GitHub Actions"]
    assert extract("Deploys happen on Tuesdays and on Monday's review", [], [], none) == []
    assert extract("Ask Alice, Bob and Carol", [], [], none) == ["Alice", "Bob", "Carol"]
    assert extract("The data lives in Google Cloud Storage.", [], [], none) == ["Google Cloud Storage"]
