"""Secrets out of a string before it reaches disk or an index (SPEC §11).

`redact` replaces each credential with a typed placeholder such as `[REDACTED:github_token]`. The
detectors are detect-secrets' regex plugins (a maintained catalogue of provider formats) and ours for
what it lacks: assignments and prose in nine languages ("password: …", "密码是…"), connection
strings, webhook URLs, key blocks, card numbers (Luhn-checked) and more providers.

Matching runs on a view of the text with invisible characters removed (a zero-width space or soft
hyphen inside a key must not hide it) and, for provider tokens, with line breaks inside a token
joined (a key wrapped over two lines). The spans found are mapped back and replaced in the text as
written, before anything changes its case or splits its lines. Every pattern is bounded, and each
runs once over the text: the cost grows with the length of the text, not with its square.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise

from kenning.core.unmask import INVISIBLE, encoded_runs

# Characters that render as nothing: removed for matching only (the text keeps them outside secrets).
_TOKEN_CHAR = r"A-Za-z0-9+/=_\-."
# A line break inside a token: wrapped by a terminal, or a string literal continued on the next line.
_BREAK = re.compile(
    rf"(?<=[{_TOKEN_CHAR}])[\"']?[ \t]{{0,40}}\+?[ \t]{{0,40}}\r?\n[ \t]{{0,40}}\+?[ \t]{{0,40}}[\"']?(?=[{_TOKEN_CHAR}])"
)
_RUN_BEFORE = re.compile(rf"[{_TOKEN_CHAR}]{{8,}}\Z")
_RUN_AFTER = re.compile(rf"[{_TOKEN_CHAR}]{{4,}}")


@dataclass(frozen=True, slots=True)
class Detector:
    kind: str
    pattern: re.Pattern[str]
    group: int | str = 0  # the part of a match that is the secret
    token: bool = False  # a provider format: also looked for across a line break
    check: str = ""  # "" | "value" (not a placeholder, looks like a secret) | "luhn"


@dataclass(frozen=True, slots=True)
class _Spec:
    """A detector before its pattern is compiled (compiling all of them at import would cost every
    process that never redacts, such as a CLI `--help`, tens of milliseconds)."""

    kind: str
    pattern: str
    flags: int
    group: int | str
    token: bool
    check: str


def _d(
    kind: str, pattern: str, group: int | str = 0, *, token: bool = False, check: str = "", flags: int = 0
) -> _Spec:
    return _Spec(kind, pattern, flags, group, token, check)


_B64 = "A-Za-z0-9+/"
# fmt: off
_OURS: tuple[_Spec, ...] = (
    _d("private_key", r"-----BEGIN (?:[A-Z0-9]{1,12} ){0,4}PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]{1,12} ){0,4}PRIVATE KEY(?: BLOCK)?-----|\Z)"),
    _d("putty_key", r"PuTTY-User-Key-File-\d{1,2}:[\s\S]*?(?:Private-MAC:[ \t]*[0-9a-fA-F]{1,128}|\Z)"),
    _d("anthropic_key", r"\bsk-ant-[A-Za-z0-9_-]{20,400}", token=True),
    _d("openai_key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,400}", token=True),
    _d("aws_access_key", r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}\b", token=True),
    _d("aws_secret_key", rf"(?i:aws|secret|amazon)[^\n]{{0,60}}?(?<![{_B64}])([{_B64}]{{40}})(?![{_B64}=])", 1, token=True, check="mixed"),
    _d("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})", token=True),
    _d("gitlab_token", r"\bgl(?:pat|rt|dt|ft|soat|cbt|imt|ptt|oas|agent)-[A-Za-z0-9_-]{20,255}", token=True),
    _d("bitbucket_token", r"\bATBB[A-Za-z0-9_=.-]{20,255}", token=True),
    _d("npm_token", r"\bnpm_[A-Za-z0-9]{30,64}", token=True),
    _d("pypi_token", r"\bpypi-[A-Za-z0-9_-]{40,255}", token=True),
    _d("docker_token", r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,255}", token=True),
    _d("rubygems_token", r"\brubygems_[0-9a-f]{40,64}", token=True),
    _d("nuget_key", r"\boy2[a-z0-9]{43}\b", token=True),
    _d("huggingface_token", r"\bhf_[A-Za-z0-9]{30,64}", token=True),
    _d("replicate_token", r"\br8_[A-Za-z0-9]{30,64}", token=True),
    _d("groq_key", r"\bgsk_[A-Za-z0-9]{40,64}", token=True),
    _d("kenning_token", r"\bkn_[a-z0-9]{12}_[A-Za-z0-9_-]{43}", token=True),
    _d("slack_token", r"\bxox[abprseo]-[A-Za-z0-9-]{10,255}", token=True),
    _d("slack_webhook", r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,255}", token=True),
    _d("discord_webhook", r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,30}/[A-Za-z0-9_-]{20,255}", token=True),
    _d("discord_token", r"\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}", token=True),
    _d("telegram_token", r"\b\d{8,10}:AA[0-9A-Za-z_-]{33}", token=True),
    _d("twilio_key", r"\b(?:AC|SK)[0-9a-f]{32}\b", token=True),
    _d("twilio_secret", r"\b(?:AC|SK)[0-9a-f]{32}:([A-Za-z0-9]{32})\b", 1),
    _d("twilio_secret", r"(?i:twilio)[^\n]{0,80}?(?<![0-9A-Za-z])([0-9a-f]{32})(?![0-9A-Za-z])", 1),
    _d("sendgrid_key", r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,64}", token=True),
    _d("mailgun_key", r"\bkey-[0-9a-f]{32}\b|\b[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}\b", token=True),
    _d("mailchimp_key", r"\b[0-9a-f]{32}-us\d{1,2}\b", token=True),
    _d("postmark_token", r"(?i:postmark)[^\n]{0,40}?\b([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b", 1),
    _d("shopify_token", r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b", token=True),
    _d("square_token", r"\bsq0(?:atp|csp|idp)-[0-9A-Za-z_-]{22,64}|\bEAAA[A-Za-z0-9_-]{56,64}", token=True),
    _d("stripe_key", r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,255}|\bwhsec_[A-Za-z0-9]{24,64}", token=True),
    _d("braintree_token", r"\baccess_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}", token=True),
    _d("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}", token=True),
    _d("google_oauth_secret", r"\bGOCSPX-[A-Za-z0-9_-]{28}", token=True),
    _d("gcp_private_key_id", r"\"private_key_id\"\s{0,5}:\s{0,5}\"([0-9a-f]{40})\"", 1),
    _d("datadog_key", r"(?i:datadog|\bdd_(?:api|app)|dd-(?:api|application)-key)[^\n]{0,40}?\b([0-9a-f]{32}|[0-9a-f]{40})\b", 1),
    _d("newrelic_key", r"\bNR(?:AK|AA|II|JS)-[A-Za-z0-9]{27}\b|\b[0-9a-f]{36}NRAL\b", token=True),
    _d("sentry_dsn", r"https://([0-9a-f]{32})(?::[0-9a-f]{32})?@[a-z0-9.-]{1,100}\.(?:sentry\.io|ingest\.[a-z.]{1,40})", 1),
    _d("atlassian_token", r"\bATATT3[A-Za-z0-9_=-]{20,255}", token=True),
    _d("linear_key", r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,64}", token=True),
    _d("notion_token", r"\b(?:secret|ntn)_[A-Za-z0-9]{43,46}\b", token=True),
    _d("airtable_token", r"\bpat[A-Za-z0-9]{14}\.[0-9a-f]{64}\b", token=True),
    _d("okta_token", r"\b00[A-Za-z0-9_-]{40}\b", check="mixed"),
    _d("cohere_key", r"(?i:cohere|co_api_key)[^\n]{0,40}?\b([A-Za-z0-9]{40})\b", 1, check="mixed"),
    _d("azure_account_key", r"(?i:AccountKey|SharedAccessKey|PrimaryKey|SecondaryKey)=([A-Za-z0-9+/=]{20,200})", 1),
    _d("azure_sas_signature", r"(?i:[?&]sig=)([A-Za-z0-9%+/=]{20,200})", 1),
    # Possessive runs: a text of "eyJeyJeyJ…" must not make each start scan and backtrack the rest.
    _d("jwt", r"\beyJ[A-Za-z0-9_-]{8,4000}+\.[A-Za-z0-9_-]{8,4000}+\.[A-Za-z0-9_-]{8,4000}+", token=True),
    _d("bearer_token", r"(?i:\bbearer\s{1,3})([A-Za-z0-9._~+/-]{16,2000}=*)", 1),
    _d("basic_auth", r"(?i:\bbasic\s{1,3})([A-Za-z0-9+/]{12,2000}={0,2})(?![A-Za-z0-9+/=])", 1, check="mixed"),
    _d("authorization", r"(?i:authorization|proxy-authorization)[\"']?\s{0,3}[:=]\s{0,3}[\"']?(?i:(?:basic|bearer|token|digest|apikey|key)\s{1,3})?([A-Za-z0-9._~+/=:-]{8,2000})", 1, check="value"),
    _d("connection_password", r"\b[a-z][a-z0-9+.-]{0,30}://[^\s:/@?#]{0,256}:([^\s@]{1,256})@(?=[\w\[])", 1, check="url", flags=re.IGNORECASE),
    _d("url_key", r"[?&](?i:api[_-]?key|apikey|key|token|access[_-]?token|appid|app[_-]?key|secret|client[_-]?secret|signature|auth|password|pass)=([^&\s#\"'<>]{8,400})", 1, check="random"),
    _d("assigned_key", r"(?<![A-Za-z0-9])[A-Za-z0-9]{1,30}[_.-](?i:key|secret|token|cred|creds|pass)[\"']?\s{0,3}[:=]\s{0,3}[\"']?([A-Za-z0-9+/=_.~-]{16,400})", 1, check="random"),
    _d("docker_auth", r"[\"']auth[\"']\s{0,3}:\s{0,3}[\"']([A-Za-z0-9+/]{12,2000}={0,2})[\"']", 1),
    _d("card_number", r"(?<![\d.-])(?:\d[ -]?){12,18}\d(?![\d-])", check="luhn"),
)
# fmt: on

# Names whose value is a secret: `client_secret = …`, `"password": "…"`, `X-Api-Key: …`, `DB_PASS=…`.
_SECRET_NAME = (
    r"(?:pass(?:word|wd|phrase|code)?|pwd|secret|token|api[_-]?key|apikey|"
    r"(?:access|secret|private|signing|encryption|master|client|account|app|service|license|session|shared|"
    r"admin|root|webhook|deploy|ssh|gpg|api|subscription|storage|sas)[_-]?key|cred(?:s|entials?)?\b|"
    r"auth[_-]?(?:token|code|key|secret)|authorization|salt|pin|dsn|cookie)"
)


@cache
def _assignment() -> re.Pattern[str]:
    return re.compile(
        rf"(?i:{_SECRET_NAME})[A-Za-z0-9_.-]{{0,30}}[\"'\]]?\s{{0,3}}(?::=|=>|[:=])\s{{0,3}}"
        r"(?:\"(?P<dq>[^\"\n]{4,400})\"|'(?P<sq>[^'\n]{4,400})'|`(?P<bq>[^`\n]{4,400})`|(?P<bare>[^\s\"',;&<>)\]}]{6,400}))"
    )


# "the password is …" in prose: English, Chinese, Japanese, Korean, Spanish, German, French, Russian,
# Portuguese, with the value plain, quoted or in brackets.
_PROSE_NAME = (
    r"(?:password|passphrase|passcode|pass|pwd|pin|secret(?: key)?|client secret|api key|token|secreto|"
    r"geheimnis|секрет|пароль от|кодовое слово|"
    r"密码|口令|密碼|パスワード|暗証番号|비밀번호|암호|contraseña|clave|passwort|kennwort|mot de passe|"
    r"пароль|пароля|senha|palavra-passe)"
)


@cache
def _prose() -> re.Pattern[str]:
    return re.compile(
        rf"(?i:{_PROSE_NAME})(?![a-z])(?:\s[^\s:：=]{{1,30}}){{0,5}}?"
        r"(?:\s{1,3}(?:is|was|are|now|set to|to|changed to|es|era|ahora|ist|lautet|war|est|était)(?![a-zà-ÿ])"
        r"|\s{0,3}(?:[—–:：=]|-(?=\s))|\s{0,3}(?:是|为|為|改成|改为|设为|は|が|を|는|은|이)){1,3}\s{0,3}"
        r"[\"'`“‘「『(\[«]?\s?(?P<bare>[!#-&(-~]{4,200})"
    )


@cache
def _placeholder() -> re.Pattern[str]:
    return re.compile(
        r"^(?:<[^>]*>|\$\{?[\w.-]*\}?|\{\{[^}]*\}\}|%\(?\w*\)?s?|\*+|x+|X+|\.\.\.|…|changeme|example\w*|"
        r"your[-_ ]?\w+|\[?redacted\b.*|none|null|true|false|required|optional|string|secret|password|"
        r"replace[-_]?me|todo|tbd|fixme|dummy|sample|placeholder|insert[-_]?\w*|put[-_]?\w*[-_]?here|(?:ssh|ecdsa|sk)-[\w@.-]+|"
        r"env\[[^\]]*\]|os\.environ.*|process\.env.*)$",
        re.IGNORECASE,
    )


def _value_ok(value: str) -> bool:
    """An assigned value that could be a secret: not a placeholder, not a word of prose."""
    if _placeholder().match(value) or "[REDACTED:" in value or value.startswith("["):
        return False
    return (
        any(c.isdigit() for c in value)
        or any(not c.isalnum() and c not in "-_." for c in value)
        or (value != value.lower() and value != value.upper() and len(value) >= 8)
    )


def _random(value: str) -> bool:
    """A generated key: long, with digits and letters, not a placeholder."""
    return (
        len(value) >= 16
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and _value_ok(value)
    )


def _mixed(value: str) -> bool:
    """A random key mixes cases and digits; a word or a hash does not."""
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


def _luhn(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        number = int(char)
        if position % 2:
            number = number * 2 - 9 if number > 4 else number * 2
        total += number
    return total % 10 == 0


def _card(value: str) -> bool:
    digits = re.sub(r"[ -]", "", value)
    if not 13 <= len(digits) <= 19 or len(set(digits)) < 2:
        return False
    return digits[0] in "23456" and _luhn(digits)


def _url_password(value: str) -> bool:
    # "host:8080/path@v2" is a port and a path, not a password.
    return re.match(r"\d{1,5}(?:/|$)", value) is None and _value_ok(value)


# Literal pieces (lower case) at least one of which every match of a kind contains: a detector whose
# pieces are all absent is not run, which keeps a write's redaction to a few substring searches.
_HINTS: dict[str, tuple[str, ...]] = {
    "private_key": ("private key",), "putty_key": ("putty",), "anthropic_key": ("sk-ant-",), "openai_key": ("sk-",),
    "aws_access_key": ("akia", "asia", "abia", "acca", "a3t"), "aws_secret_key": ("aws", "secret", "amazon"),
    "aws_access_key_id": ("akia", "asia", "abia", "acca", "a3t", "aws"), "github_token": ("gh", "github_pat_"),
    "gitlab_token": ("gl", "gr1348941"), "bitbucket_token": ("atbb",), "npm_token": ("npm_",), "npm_tokens": ("npm_",),
    "pypi_token": ("pypi-",), "docker_token": ("dckr_",), "rubygems_token": ("rubygems_",), "nuget_key": ("oy2",),
    "huggingface_token": ("hf_",), "replicate_token": ("r8_",), "groq_key": ("gsk_",), "slack_token": ("xox", "hooks.slack"),
    "slack_webhook": ("hooks.slack",), "discord_webhook": ("discord",), "discord_token": (".",),
    "discord_bot_token": (".",), "telegram_token": (":aa",), "telegram_bot_token": (":",), "twilio_key": ("ac", "sk"),
    "twilio_api_key": ("ac", "sk"), "twilio_secret": ("ac", "sk", "twilio"), "sendgrid_key": ("sg.",),
    "sendgrid_api_key": ("sg.",), "mailgun_key": ("key-", "-"), "mailchimp_key": ("-us",),
    "mailchimp_access_key": ("-us",), "postmark_token": ("postmark",), "shopify_token": ("shp",),
    "square_token": ("sq0", "eaaa"), "square_oauth_secret": ("sq0",), "stripe_key": ("k_live_", "k_test_", "whsec_"),
    "stripe_access_key": ("k_live_",), "braintree_token": ("access_token$",), "google_api_key": ("aiza",),
    "google_oauth_secret": ("gocspx-",), "gcp_private_key_id": ("private_key_id",),
    "datadog_key": ("datadog", "dd_", "dd-"), "newrelic_key": ("nr", "nral"), "sentry_dsn": ("sentry", "ingest."),
    "atlassian_token": ("atatt3",), "kenning_token": ("kn_",), "linear_key": ("lin_",), "notion_token": ("secret_", "ntn_"),
    "airtable_token": ("pat",), "okta_token": ("00",), "cohere_key": ("cohere", "co_api_key"),
    "azure_account_key": ("accountkey", "sharedaccesskey", "primarykey", "secondarykey"), "azure_storage_account_access_key": ("accountkey",),
    "azure_sas_signature": ("sig=",), "jwt": ("eyj",), "json_web_token": ("eyj",), "bearer_token": ("bearer",),
    "basic_auth": ("basic",), "authorization": ("authorization",), "connection_password": ("://",),
    "basic_auth_credentials": ("://",), "url_key": ("?", "&"), "docker_auth": ("auth",),
    "artifactory_credentials": ("akc", "ap"), "cloudant_credentials": ("cl",),
    "ibm_cloud_iam_key": ("key", "pwd", "pass", "token"), "ibm_cos_hmac_credentials": ("secret",),
    "softlayer_credentials": ("softlayer", "sl"), "openai_token": ("t3blbkfj",),
}  # fmt: skip


_ALL_HINTS = frozenset(hint for hints in _HINTS.values() for hint in hints)
_ASSIGNMENT_HINTS = ("pass", "pwd", "secret", "token", "key", "cred", "auth", "salt", "pin", "dsn", "cookie")
_PROSE_HINTS = (
    "pass", "pwd", "pin", "secret", "token", "api key", "密码", "口令", "密碼", "パスワード", "暗証番号", "비밀번호", "암호",
    "contraseña", "clave", "passwort", "kennwort", "mot de passe", "пароль", "senha", "palavra-passe", "geheimnis",
    "секрет", "кодовое",
)  # fmt: skip


@cache
def _catalogue() -> tuple[tuple[Detector, tuple[str, ...] | None], ...]:
    return tuple((d, _HINTS.get(d.kind)) for d in detectors())


def _active(lowered: str) -> list[Detector]:
    """The detectors that could match: some piece of theirs is in the text (or they have none)."""
    present = {hint for hint in _ALL_HINTS if hint in lowered}
    return [d for d, hints in _catalogue() if hints is None or not present.isdisjoint(hints)]


_CHECKS = {
    "": None,
    "value": _value_ok,
    "mixed": _mixed,
    "luhn": _card,
    "url": _url_password,
    "random": _random,
}


@cache
def _library() -> tuple[Detector, ...]:
    """detect-secrets' regex plugins, each pattern with the part of a match that is the secret."""
    from detect_secrets.plugins import (
        artifactory,
        aws,
        azure_storage_key,
        cloudant,
        discord,
        github_token,
        gitlab_token,
        ibm_cloud_iam,
        ibm_cos_hmac,
        mailchimp,
        openai,
        pypi_token,
        sendgrid,
        slack,
        softlayer,
        square_oauth,
        stripe,
        telegram_token,
        twilio,
    )

    plugins = (
        artifactory.ArtifactoryDetector, aws.AWSKeyDetector, azure_storage_key.AzureStorageKeyDetector,
        cloudant.CloudantDetector, discord.DiscordBotTokenDetector, github_token.GitHubTokenDetector,
        gitlab_token.GitLabTokenDetector, ibm_cloud_iam.IbmCloudIamDetector, ibm_cos_hmac.IbmCosHmacDetector,
        mailchimp.MailchimpDetector, openai.OpenAIDetector, pypi_token.PypiTokenDetector,
        sendgrid.SendGridDetector, slack.SlackDetector, softlayer.SoftlayerDetector,
        square_oauth.SquareOAuthDetector, stripe.StripeDetector, telegram_token.TelegramBotTokenDetector,
        twilio.TwilioKeyDetector,
    )  # fmt: skip
    found: list[Detector] = []
    for plugin in plugins:
        kind = re.sub(r"[^a-z0-9]+", "_", plugin.secret_type.lower()).strip("_")
        for pattern in plugin().denylist:
            # A group that holds the secret (not a prefix such as "ghp"): the longest one, else the match.
            found.append(Detector(kind, pattern, -1 if pattern.groups else 0, token=not pattern.groups))
    return tuple(found)


@cache
def detectors() -> tuple[Detector, ...]:
    ours = (Detector(s.kind, re.compile(s.pattern, s.flags), s.group, s.token, s.check) for s in _OURS)
    return (*_library(), *ours)


@dataclass(frozen=True, slots=True)
class _View:
    """A text with some stretches left out, and where each kept character was in the original."""

    text: str
    origin: Sequence[int]

    @staticmethod
    def of(text: str, cuts: Sequence[tuple[int, int]]) -> _View:
        if not cuts:  # the usual case: the view is the text, and no position list is built
            return _View(text, range(len(text)))
        kept: list[str] = []
        origin: list[int] = []
        at = 0
        for start, end in cuts:
            kept.append(text[at:start])
            origin.extend(range(at, start))
            at = end
        kept.append(text[at:])
        origin.extend(range(at, len(text)))
        return _View("".join(kept), origin)

    def span(self, start: int, end: int) -> tuple[int, int]:
        return self.origin[start], self.origin[end - 1] + 1


def _spans(view: str, detector: Detector) -> Iterator[tuple[int, int]]:
    check = _CHECKS[detector.check]
    for match in detector.pattern.finditer(view):
        start, end = _secret_span(match, detector.group)
        if end - start < 4:
            continue
        if check is not None and not check(view[start:end]):
            continue
        yield start, end


def _secret_span(match: re.Match[str], group: int | str) -> tuple[int, int]:
    if group == -1:  # detect-secrets: the longest group that is not a prefix, else the whole match
        spans = [match.span(i) for i in range(1, (match.re.groups or 0) + 1) if match.group(i)]
        best = max(spans, key=lambda s: s[1] - s[0], default=match.span())
        start, end = best if best[1] - best[0] >= 12 else match.span()
    elif isinstance(group, str) or group:
        start, end = match.span(group)
    else:
        start, end = match.span()
    text = match.string
    while start < end and text[start] in " \t\r\n=:\"'":
        start += 1
    while end > start and text[end - 1] in " \t\r\n\"'":
        end -= 1
    return start, end


def _assigned(view: str, lowered: str) -> Iterator[tuple[int, int, str]]:
    for pattern, hints in ((_assignment(), _ASSIGNMENT_HINTS), (_prose(), _PROSE_HINTS)):
        if not any(hint in lowered for hint in hints):
            continue
        kind = "password"
        for match in pattern.finditer(view):
            name = next(g for g in ("dq", "sq", "bq", "bare") if g in match.groupdict() and match.group(g))
            start, end = match.span(name)
            value = view[start:end].rstrip(".:!?,;)]！？")
            end = start + len(value)
            if len(value) < 4 or not _value_ok(value):
                continue
            if (
                value.isdigit()
                and len(value) < 12
                and not re.search(r"(?i)pass|pin|pwd|密|码|パス|비밀|암호", match.group(0))
            ):
                continue  # `max_tokens = 4096`, `token_ttl: 3600`
            yield start, end, kind


def find(text: str) -> list[tuple[int, int, str]]:
    """The secrets in `text`, as (start, end, kind) spans of the text as written, not overlapping.
    A Base64 or hex run that decodes to text holding a secret is itself one (a Kubernetes
    manifest's `data:` values, a header copied encoded)."""
    found = _found(text)
    # Read with invisible characters taken out, as everything else here is: a zero-width space
    # inside the run must not hide what it encodes.
    view = _View.of(text, [m.span() for m in INVISIBLE.finditer(text)])
    for start, end, decoded in encoded_runs(view.text):
        inner = _found(decoded)
        if inner:
            found.append((*view.span(start, end), inner[0][2]))
    return _merge(found)


def _found(text: str) -> list[tuple[int, int, str]]:
    view = _View.of(text, [m.span() for m in INVISIBLE.finditer(text)])
    lowered = view.text.lower()
    active = _active(lowered)
    found: list[tuple[int, int, str]] = []
    for detector in active:
        for start, end in _spans(view.text, detector):
            found.append((*view.span(start, end), detector.kind))
    for start, end, kind in _assigned(view.text, lowered):
        found.append((*view.span(start, end), kind))
    for start, end, kind in _columns(view.text):
        found.append((*view.span(start, end), kind))
    for start, end, kind in _across_breaks(view.text, [d for d in active if d.token]):
        found.append((*view.span(start, end), kind))
    return _merge(found)


@cache
def _column_name() -> re.Pattern[str]:
    return re.compile(rf"(?i)[\s\"'`*]*(?:[A-Za-z0-9]+[_ -])?{_SECRET_NAME}[\s\"'`*]*")


def _columns(text: str) -> Iterator[tuple[int, int, str]]:
    """Values under a header named like a secret, in CSV, TSV or a Markdown table."""
    if "\n" not in text:
        return
    lines = text.split("\n")
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    for separator in (",", "\t", ";", "|"):
        header: list[int] | None = None
        width = 0
        for line, offset in zip(lines, offsets, strict=True):
            cells = line.split(separator)
            if len(cells) < 2:
                header = None
                continue
            if header is None or len(cells) != width:
                named = [
                    i for i, cell in enumerate(cells) if len(cell) <= 40 and _column_name().fullmatch(cell)
                ]
                header, width = (named, len(cells)) if named else (None, 0)
                continue
            starts = [0]
            for cell in cells[:-1]:
                starts.append(starts[-1] + len(cell) + 1)
            for index in header:
                raw = cells[index]
                value = raw.strip().strip("\"'`")
                if len(value) >= 4 and _value_ok(value) and not set(value) <= set("-: "):
                    start = offset + starts[index] + raw.index(value)
                    yield start, start + len(value), "password"


def _across_breaks(text: str, tokens: list[Detector]) -> Iterator[tuple[int, int, str]]:
    """Tokens a line break cut in two: each break is tried on its own, the line before it joined to
    the token run after it, and only a match that spans the break counts."""
    if "\n" not in text or not tokens:
        return
    for cut in _BREAK.finditer(text):
        line_start = text.rfind("\n", 0, cut.start()) + 1
        before = text[line_start : cut.start()]
        after = _RUN_AFTER.match(text, cut.end())
        if after is None or _RUN_BEFORE.search(before) is None:
            continue
        joined = before + after.group(0)
        seam = len(before)
        for detector in tokens:
            for start, end in _spans(joined, detector):
                if start < seam < end:
                    yield line_start + start, cut.end() + (end - seam), detector.kind


def _merge(spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Overlapping spans as one, named by the first detector that found the earliest of them."""
    out: list[tuple[int, int, str]] = []
    for start, end, kind in sorted(spans, key=lambda s: (s[0], -s[1])):
        if out and start < out[-1][1]:
            first, last, named = out[-1]
            out[-1] = (first, max(last, end), named)
        else:
            out.append((start, end, kind))
    return out


def redact(text: str) -> tuple[str, list[str]]:
    """The text with secrets replaced by typed placeholders, and the kinds that were found."""
    if not text:
        return text, []
    spans = find(text)
    if not spans:
        return text, []
    parts: list[str] = []
    at = 0
    for start, end, kind in spans:
        parts.append(text[at:start])
        parts.append(f"[REDACTED:{kind}]")
        at = end
    parts.append(text[at:])
    return "".join(parts), [kind for _, _, kind in spans]


def _random_case(value: str) -> bool:
    """Mixed case and digits with the case flipping often between letters, as in a generated key
    ("u7F7lHU5yaxYbGQD"), not at word starts only, as in a name ("AuthService2024Migration")."""
    if not _mixed(value):
        return False
    letters = "".join(c for c in value if c.isalpha())
    cases = [c.isupper() for c in letters]
    runs = 1 + sum(1 for a, b in pairwise(cases) if a != b)
    # A name is words: most of its letters sit in same-case runs of four or more ("Storage", "HTTPS").
    wordy = sum(len(run) for run in re.findall(r"[a-z]{4,}|[A-Z]{4,}", letters))
    return len(letters) / runs <= 3.5 and wordy < 0.6 * len(letters)


_LABEL_TOKEN = re.compile(r"[A-Za-z0-9+/=_%.~-]{20,2000}")


def redact_label(text: str) -> tuple[str, list[str]]:
    """`redact` for a short label (a tag, an entity, a session id, a metadata key), where a long run
    of digits and letters whose case flips often is a key whatever its context: no name is written so."""
    cleaned, kinds = redact(text)

    def token(match: re.Match[str]) -> str:
        if not _random_case(match.group(0)):
            return match.group(0)
        kinds.append("token")
        return "[REDACTED:token]"

    return _LABEL_TOKEN.sub(token, cleaned), kinds
