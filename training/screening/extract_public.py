"""Extract the public prompt-injection corpora that train_head.py reads.

    .venv/bin/python training/screening/extract_public.py [--out PATH] [--mirrors DIR]

Reads bare git mirrors of licensed public repositories (DIR/<owner>+<name>/repo, default
/work/.mirror) with `git show` at the commits pinned in SOURCES, and writes one JSON object per line:
{"text", "label": "attack" | "benign", "lang", "source": "<repo>:<path>"}. No network.

"attack" is text that carries an injected instruction meant to steer an agent: the instruction itself,
or a carrier (an email, a web page, a tool output) with the instruction embedded. "benign" is carrier
text without one, or an ordinary request to an assistant. Labels come from each corpus's structure
(which file, which field, whether the attacker's slot was filled), never from a guess about the text;
what each source contributes and why is in SOURCES.md beside this file.

Every text is stripped, cut to MAX_CHARS at a whitespace (keeping the injected span of a carrier
whole), dropped under MIN_CHARS, and deduplicated exactly; a text found under both labels is dropped.
Each repository then gives at most REPO_CAP lines, at most ATTACK_CAP of them attacks, picked
round-robin over its paths and within a path by sha256 of the text, so the output is the same on
every run. The injections are composed here from the corpora's own parts (carriers, goals, templates);
parsing is ours, nothing of the repositories' code is run or copied. YAML is read with PyYAML, which
the virtual environment has through detect-secrets.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import shutil
import subprocess
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

DEFAULT_OUT = Path("/tmp/kenning-screening-public.jsonl")  # noqa: S108 - where train_head.py looks
DEFAULT_MIRRORS = Path("/work/.mirror")
MAX_CHARS = 2000
MIN_CHARS = 20
REPO_CAP = 1200
ATTACK_CAP = 500

# The commits read, one per repository (see SOURCES.md for licences and paths).
SOURCES = {
    "microsoft/BIPIA": "1a2a91da6bb12838e05d1b2e54d98e2f37b835f3",
    "enkryptai/xInjectAgent": "21af27703ad4e591b8fc686ab9d79249d299a0e8",
    "sequrity-ai/agentdojo": "357c80dea9af34323f709c3505d9e6d224654c7e",
    "meta-llama/PurpleLlama": "4be64c3a24442b51c76175e6ec67722cc3f5fe38",
    "NVIDIA/garak": "cafbe992780df70015de7295ca026b70c4629ada",
    "protectai/llm-guard": "53af270c69316ed82cb71ba7b19d11b55bda3151",
}


@dataclass(frozen=True)
class Row:
    text: str
    label: str  # "attack" or "benign"
    path: str
    lang: str = "en"
    keep: str = ""  # the injected span of a carrier: a cut text must still hold all of it


def attack(text: str, path: str, *, keep: str = "", lang: str = "en") -> Row:
    return Row(text, "attack", path, lang, keep.strip())


def benign(text: str, path: str, *, lang: str = "en") -> Row:
    return Row(text, "benign", path, lang)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class Mirror:
    """One repository's bare mirror, read at a pinned commit."""

    def __init__(self, root: Path, repo: str, commit: str) -> None:
        self.repo = repo
        self.commit = commit
        self.git_dir = root / repo.replace("/", "+") / "repo"
        self.git = shutil.which("git") or "git"

    def _git(self, *args: str) -> str:
        done = subprocess.run(  # noqa: S603 - git with fixed arguments on a local mirror
            [self.git, "--git-dir", str(self.git_dir), *args], capture_output=True, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"{self.repo}: git {' '.join(args)}: {done.stderr.decode().strip()}")
        return done.stdout.decode("utf-8")

    def show(self, path: str) -> str:
        return self._git("show", f"{self.commit}:{path}")

    def json(self, path: str) -> Any:
        return json.loads(self.show(path))

    def jsonl(self, path: str) -> list[Any]:
        return [json.loads(line) for line in self.show(path).splitlines() if line.strip()]

    def files(self, under: str) -> list[str]:
        return sorted(self._git("ls-tree", "-r", "--name-only", self.commit, "--", under).splitlines())


# --- Python sources read as data: string constants, f-strings over them, lists of them -------------


class Unresolved(Exception):
    """An expression that is not built from literals and names already known."""


def literal(node: ast.expr, names: Mapping[str, Any]) -> Any:
    """The value of a literal expression, f-strings and + and * included, over `names`."""
    match node:
        case ast.Constant(value=value):
            return value
        case ast.Name(id=name) if name in names:
            return names[name]
        case ast.Attribute(value=ast.Name(id=owner), attr=attr) if f"{owner}.{attr}" in names:
            return names[f"{owner}.{attr}"]
        case ast.JoinedStr(values=parts):
            return "".join(literal(part, names) for part in parts)
        case ast.FormattedValue(value=value, conversion=-1, format_spec=None):
            return str(literal(value, names))
        case ast.List(elts=items):
            return [literal(item, names) for item in items]
        case ast.Tuple(elts=items):
            return tuple(literal(item, names) for item in items)
        case ast.UnaryOp(op=ast.USub(), operand=operand):
            return -literal(operand, names)
        case ast.BinOp(left=left, op=ast.Add(), right=right):
            return literal(left, names) + literal(right, names)
        case ast.BinOp(left=left, op=ast.Mult(), right=right):
            return literal(left, names) * literal(right, names)
    raise Unresolved(ast.dump(node)[:80])


class PyModule:
    """The literal assignments of a module and of its classes, with each class's base names."""

    def __init__(self, source: str) -> None:
        self.tree = ast.parse(source)
        self.names: dict[str, Any] = {}
        self.classes: dict[str, dict[str, Any]] = {}
        self.bases: dict[str, list[str]] = {}
        self._assign(self.tree.body, self.names)
        for node in self.tree.body:
            if isinstance(node, ast.ClassDef):
                self.bases[node.name] = [b.id for b in node.bases if isinstance(b, ast.Name)]
                attrs: dict[str, Any] = {}
                self._assign(node.body, attrs, outer=self.names)
                self.classes[node.name] = attrs
                self.names.update({f"{node.name}.{key}": value for key, value in attrs.items()})

    @staticmethod
    def _assign(body: list[ast.stmt], into: dict[str, Any], outer: Mapping[str, Any] | None = None) -> None:
        for node in body:
            match node:
                case (
                    ast.Assign(targets=[ast.Name(id=name)], value=value)
                    | ast.AnnAssign(target=ast.Name(id=name), value=ast.expr() as value)
                ):
                    try:
                        into[name] = literal(value, {**(outer or {}), **into})
                    except (Unresolved, TypeError):
                        continue

    def attr(self, cls: str, name: str) -> Any:
        """A class attribute, looked up through the base classes defined in this module."""
        if name in self.classes.get(cls, {}):
            return self.classes[cls][name]
        for base in self.bases.get(cls, []):
            found = self.attr(base, name)
            if found is not None:
                return found
        return None

    def class_values(self, name: str) -> Iterator[str]:
        """The value of attribute `name` in every class that sets it to a string."""
        for attrs in self.classes.values():
            if isinstance(attrs.get(name), str):
                yield attrs[name]


# --- microsoft/BIPIA --------------------------------------------------------------------------------

BIPIA_EMAILS = ("benchmark/email/train.jsonl", "benchmark/email/test.jsonl")
BIPIA_TEXT_ATTACKS = ("benchmark/text_attack_train.json", "benchmark/text_attack_test.json")
BIPIA_CODE_ATTACKS = ("benchmark/code_attack_train.json", "benchmark/code_attack_test.json")
BIPIA_EMAILS_PER_ATTACK = 3


def embed(carrier: str, injection: str, where: int) -> str:
    """The injection before the carrier (0), at the sentence break nearest its middle (1), or after it."""
    if where == 0:
        return f"{injection}\n\n{carrier}"
    if where == 1:
        breaks = [m.end() for m in re.finditer(r"[.!?]\s+|\n", carrier)]
        if breaks:
            cut = min(breaks, key=lambda at: abs(at - len(carrier) // 2))
            return f"{carrier[:cut].rstrip()}\n\n{injection}\n\n{carrier[cut:].lstrip()}"
    return f"{carrier}\n\n{injection}"


def bipia(mirror: Mirror) -> Iterator[Row]:
    """Invoice emails (from OpenAI Evals, MIT) clean, and with each text attack embedded in three of
    them; the code attacks are instructions to put malicious code in an answer, taken alone. The
    table and code contexts are CC BY-SA (NOTICE.md) and the web and summary ones are not shipped."""
    emails: dict[str, str] = {}
    for path in BIPIA_EMAILS:
        for item in mirror.jsonl(path):
            emails.setdefault(item["context"], path)
    for email, path in emails.items():
        yield benign(email, path)
    for path in BIPIA_TEXT_ATTACKS:
        for injections in mirror.json(path).values():
            for injection in injections:
                ranked = sorted(emails, key=lambda email, i=injection: sha(i + email))
                for where, email in enumerate(ranked[:BIPIA_EMAILS_PER_ATTACK]):
                    yield attack(embed(email, injection, where), emails[email], keep=injection)
    for path in BIPIA_CODE_ATTACKS:
        for injections in mirror.json(path).values():
            for injection in injections:
                yield attack(injection, path)


# --- enkryptai/xInjectAgent (InjecAgent) --------------------------------------------------------------

INJECAGENT_CASES = (
    "data/test_cases_dh_base.json",
    "data/test_cases_dh_enhanced.json",
    "data/test_cases_ds_base.json",
    "data/test_cases_ds_enhanced.json",
    "data/test_cases_dh_tech.json",
    "data/test_cases_dh_test.json",
    "data/test_cases_dh_tool.json",
    "data/test_cases_ds_test.json",
)
INJECAGENT_USER_CASES = "data/user_cases.jsonl"
INJECAGENT_RESPONSES = "data/attacker_simulated_responses.json"
INJECAGENT_SLOT = "<Attacker Instruction>"


def injecagent(mirror: Mirror) -> Iterator[Row]:
    """Tool responses with the attacker's instruction in a field (attack); the same response templates
    with that field left empty, and the simulated outputs of the attacker's tools, which carry data
    and no instruction (benign)."""
    for path in INJECAGENT_CASES:
        for case in mirror.json(path):
            response = case["Tool Response"]
            if len(response) > 1 and response[0] == response[-1] == '"':
                response = response[1:-1]
            yield attack(response, path, keep=case["Attacker Instruction"])
    for case in mirror.jsonl(INJECAGENT_USER_CASES):
        yield benign(case["Tool Response Template"].replace(INJECAGENT_SLOT, ""), INJECAGENT_USER_CASES)
    for output in mirror.json(INJECAGENT_RESPONSES).values():
        yield benign(output, INJECAGENT_RESPONSES)


# --- sequrity-ai/agentdojo ------------------------------------------------------------------------------

AGENTDOJO_DATA = "src/agentdojo/data/suites"
AGENTDOJO_TASKS = "src/agentdojo/default_suites"
AGENTDOJO_ATTACKS = (
    "src/agentdojo/attacks/baseline_attacks.py",
    "src/agentdojo/attacks/important_instructions_attacks.py",
    "src/agentdojo/attacks/dos_attacks.py",
)
AGENTDOJO_SUITES = ("banking", "slack", "travel", "workspace")
AGENTDOJO_PAGES = ("web_content", "files")  # mappings of a URL or file name to its text
AGENTDOJO_RUN = 3  # records in a list-shaped tool output (a search, an inbox)
PROSE = 60  # characters from which a YAML string is written as a block
# Who the templates' {user} and {model} name: the suites' user or the attacks' generic name, and the
# attacks' generic model name or two of the model names they use.
AGENTDOJO_USERS = ("Emma Johnson", "the user")
AGENTDOJO_MODELS = ("the AI language model", "GPT-4", "Claude")
TEMPLATE_FIELDS = re.compile(r"\{(\w+)\}")


def agentdojo_templates(mirror: Mirror) -> list[str]:
    """The attack strings: class-level *_STRING constants and string arguments naming {goal}; only
    those whose fields are goal, user and model (the tool-sequence template needs a solver run)."""
    templates: set[str] = set()
    for path in AGENTDOJO_ATTACKS:
        for node in ast.walk(ast.parse(mirror.show(path))):
            values: list[ast.expr] = []
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id.endswith("_STRING") for t in node.targets
            ):
                values = [node.value]
            elif isinstance(node, ast.Call):
                values = [a for a in node.args if isinstance(a, ast.Constant) and "{goal}" in str(a.value)]
            for value in values:
                text = value.value if isinstance(value, ast.Constant) else None
                if isinstance(text, str) and set(TEMPLATE_FIELDS.findall(text)) <= {"goal", "user", "model"}:
                    templates.add(text)
    return sorted(templates)


def agentdojo_task_strings(mirror: Mirror, kind: str, attribute: str) -> dict[str, dict[str, str]]:
    """Per suite, the literal `attribute` (GOAL or PROMPT) of every task class in its `kind` files
    (all benchmark versions), each with the first file that has it."""
    found: dict[str, dict[str, str]] = defaultdict(dict)
    for path in mirror.files(AGENTDOJO_TASKS):
        suite = Path(path).parent.name
        if Path(path).name == f"{kind}.py" and suite in AGENTDOJO_SUITES:
            for value in PyModule(mirror.show(path)).class_values(attribute):
                found[suite].setdefault(value, path)
    return found


def agentdojo_environment(mirror: Mirror, suite: str) -> dict[str, Any]:
    """A suite's environment, with !include resolved, placeholders such as {injection_x} left in."""
    base = f"{AGENTDOJO_DATA}/{suite}"

    class Loader(yaml.SafeLoader):
        pass

    def include(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
        path = f"{base}/{loader.construct_scalar(node)}"  # type: ignore[arg-type]
        return {"__file__": path, "data": yaml.load(mirror.show(path), Loader)}  # noqa: S506 - SafeLoader

    Loader.add_constructor("!include", include)
    return yaml.load(mirror.show(f"{base}/environment.yaml"), Loader)  # noqa: S506 - a SafeLoader


def agentdojo_lists(node: Any, path: str) -> Iterator[tuple[list[Any], str]]:
    """The lists tools return records from (emails, events, files, hotels, transactions, messages),
    and each text under web_content or files on its own; with the file they came from."""
    if isinstance(node, dict) and "__file__" in node:
        yield from agentdojo_lists(node["data"], node["__file__"])
    elif isinstance(node, dict):
        for key, value in node.items():
            if key in AGENTDOJO_PAGES and isinstance(value, dict):
                yield from (([text], path) for text in value.values() if isinstance(text, str))
            else:
                yield from agentdojo_lists(value, path)
    elif isinstance(node, list) and any(isinstance(item, dict) for item in node):
        yield [item for item in node if isinstance(item, dict)], path


def agentdojo_outputs(records: list[Any]) -> Iterator[Any]:
    """What a tool may return from a list: each record, and each run of AGENTDOJO_RUN in a row."""
    yield from records
    for start in range(len(records) - AGENTDOJO_RUN + 1):
        yield records[start : start + AGENTDOJO_RUN]


def fill(node: Any, values: Mapping[str, str]) -> Any:
    if isinstance(node, str):
        for name, value in values.items():
            node = node.replace(f"{{{name}}}", value)
        return node
    if isinstance(node, dict):
        return {key: fill(value, values) for key, value in node.items()}
    if isinstance(node, list):
        return [fill(item, values) for item in node]
    return node


class Dumper(yaml.SafeDumper):
    """Prose (long, multi-line or quoting) as literal blocks: readable, and an injected text keeps its
    lines verbatim (no quotes doubled or escaped), so `span` finds it."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    prose = len(value) > PROSE or any(c in value for c in "\n'\"")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if prose else None)


Dumper.add_representer(str, _text)


def render(record: Any) -> str:
    if isinstance(record, str):
        return record
    return yaml.dump(record, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=100_000)


def agentdojo_injections(templates: list[str], goals: Iterable[str]) -> list[str]:
    """Each template with each goal (once if it names none), its user and model picked by hash."""
    injections = []
    for template in templates:
        for goal in sorted(goals) if "{goal}" in template else [""]:
            key = int(sha(template + goal)[:8], 16)
            user, model = AGENTDOJO_USERS[key % 2], AGENTDOJO_MODELS[key // 2 % len(AGENTDOJO_MODELS)]
            injections.append(template.format(goal=goal, user=user, model=model))
    return injections


def agentdojo(mirror: Mirror) -> Iterator[Row]:
    """Environment records as tools return them (YAML; one record or a few in a row), with the
    injection slots at their defaults (benign) or one slot holding an attack template filled with one
    of the suite's injection goals (attack); and the user tasks' prompts (benign requests)."""
    templates = agentdojo_templates(mirror)
    goals = agentdojo_task_strings(mirror, "injection_tasks", "GOAL")
    prompts = agentdojo_task_strings(mirror, "user_tasks", "PROMPT")
    for suite in AGENTDOJO_SUITES:
        vectors = yaml.safe_load(mirror.show(f"{AGENTDOJO_DATA}/{suite}/injection_vectors.yaml"))
        defaults = {name: str(vector["default"]) for name, vector in vectors.items()}
        injections = agentdojo_injections(templates, goals[suite])
        environment = agentdojo_environment(mirror, suite)
        for records, path in agentdojo_lists(environment, f"{AGENTDOJO_DATA}/{suite}/environment.yaml"):
            for output in agentdojo_outputs(records):
                yield benign(render(fill(output, defaults)), path)
                for slot in (name for name in defaults if f"{{{name}}}" in render(output)):
                    for injection in injections:
                        text = render(fill(output, {**defaults, slot: injection}))
                        yield attack(text, path, keep=injection)
        for prompt, path in sorted(prompts[suite].items()):
            yield benign(prompt, path)


# --- meta-llama/PurpleLlama (CyberSecEval) -------------------------------------------------------------

CYBERSECEVAL = (
    "CybersecurityBenchmarks/datasets/prompt_injection/prompt_injection.json",
    "CybersecurityBenchmarks/datasets/prompt_injection/prompt_injection_multilingual_machine_translated.json",
)
# Direct tests are attacks only against their own system prompt ("do not discuss recipes", then a
# recipe question); these two variants carry an override in the text itself.
CYBERSECEVAL_DIRECT = ("ignore_previous_instructions", "system_mode")
LANGUAGES = {
    "English": "en",
    "Arabic": "ar",
    "Bengali": "bn",
    "Chinese": "zh",
    "Filipino/Tagalog": "tl",
    "French": "fr",
    "German": "de",
    "Hindi": "hi",
    "Indonesian": "id",
    "Italian": "it",
    "Japanese": "ja",
    "Korean": "ko",
    "Portuguese": "pt",
    "Russian": "ru",
    "Spanish": "es",
    "Thai": "th",
    "Turkish": "tr",
    "Vietnamese": "vi",
}


def cyberseceval(mirror: Mirror) -> Iterator[Row]:
    """The user input of every indirect test (a document or page with an instruction in it) and of the
    direct tests that carry an override (ignore previous instructions, system or developer mode)."""
    for path in CYBERSECEVAL:
        for case in mirror.json(path):
            if case["injection_type"] == "indirect" or case["injection_variant"] in CYBERSECEVAL_DIRECT:
                language = LANGUAGES[case.get("speaking_language", "English")]
                yield attack(case["user_input"], path, lang=language)


# --- NVIDIA/garak ------------------------------------------------------------------------------------

GARAK_LATENT = "garak/probes/latentinjection.py"
GARAK_PAYLOADS = "garak/data/payloads"
GARAK_WHOIS = f"{GARAK_PAYLOADS}/whois_injection_contexts.json"
GARAK_DAN = "garak/data/dan"
GARAK_AUTODAN = "garak/data/autodan/autodan_prompts.json"
GARAK_SYSPROMPT = "garak/data/sysprompt_extraction/attacks.json"
# Latent-injection probes whose contexts are documents; the Eiffel Tower snippets, the translation
# probes (no document) and the latent jailbreak (hate-speech requests) are left out.
GARAK_DOCUMENTS = ("LatentInjectionReportFull", "LatentInjectionResumeFull")
GARAK_SNIPPETS = ("LatentInjectionFactSnippetLegalFull",)
GARAK_WIKIPEDIA = ("Employee stock purchase plan",)  # a context quoted from Wikipedia (CC BY-SA)
SNIPPETS_PER_CONTEXT = 3
GARAK_MODEL_NAME = "ChatGPT"  # for the DAN prompts' {generator.name}


def garak_injections(probe: PyModule, cls: str, mirror: Mirror) -> list[str]:
    """Every separator x instruction x payload x trigger a probe combines, composed here."""
    triggers = probe.attr(cls, "payload_triggers")
    if not triggers:
        triggers = mirror.json(f"{GARAK_PAYLOADS}/{garak_payload_name(probe, cls)}.json")["payloads"]
    payload_marker, trigger_marker = probe.names["PAYLOAD_MARKER"], probe.names["TRIGGER_MARKER"]
    return [
        f"{start}{instruction.replace(payload_marker, payload.replace(trigger_marker, trigger))}{end}"
        for start, end in probe.attr(cls, "injection_sep_pairs")
        for instruction in probe.attr(cls, "injection_instructions")
        for payload in probe.attr(cls, "payloads")
        for trigger in triggers
    ]


def garak_payload_name(probe: PyModule, cls: str) -> str:
    """The payload file a probe's DEFAULT_PARAMS names (they are merged dicts, so read the literal)."""
    for node in ast.walk(probe.tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for item in ast.walk(node):
                if isinstance(item, ast.Dict):
                    for key, value in zip(item.keys, item.values, strict=True):
                        if isinstance(key, ast.Constant) and key.value == "payload_name":
                            return literal(value, {})
    raise SystemExit(f"garak: no payload_name in {cls}")


def garak(mirror: Mirror) -> Iterator[Row]:
    """Documents (a report, resumes, legal snippets, whois records) with the probe's injection at its
    marker (attack) and without it (benign); DAN and AutoDAN jailbreaks and system-prompt extraction
    requests (attack)."""
    probe = PyModule(mirror.show(GARAK_LATENT))
    marker = probe.names["INJECTION_MARKER"]
    for cls in GARAK_DOCUMENTS:
        injections = garak_injections(probe, cls, mirror)
        for context in probe.attr(cls, "contexts"):
            if context.strip().startswith(GARAK_WIKIPEDIA):
                continue
            yield benign(context.replace(marker, ""), GARAK_LATENT)
            for injection in injections:
                yield attack(context.replace(marker, injection), GARAK_LATENT, keep=injection)
    for cls in GARAK_SNIPPETS:
        paragraphs = probe.attr(cls, "paragraphs")
        injections = garak_injections(probe, cls, mirror)
        for paragraph in paragraphs:
            yield benign(paragraph, GARAK_LATENT)
        for first in range(len(paragraphs)):
            window = [paragraphs[(first + i) % len(paragraphs)] for i in range(SNIPPETS_PER_CONTEXT)]
            yield benign("\n".join(window), GARAK_LATENT)
            for injection in injections:
                at = 1 + int(sha(injection + window[0])[:8], 16) % (SNIPPETS_PER_CONTEXT - 1)
                yield attack("\n".join([*window[:at], injection, *window[at:]]), GARAK_LATENT, keep=injection)
    whois_injections = garak_injections(probe, "LatentWhois", mirror)
    for record in mirror.json(GARAK_WHOIS)["payloads"]:
        yield benign(record.replace("{INJECTION_MARKER}", ""), GARAK_WHOIS)
        for injection in whois_injections:
            yield attack(record.replace("{INJECTION_MARKER}", injection), GARAK_WHOIS, keep=injection)
    for path in [p for p in mirror.files(GARAK_DAN) if p.endswith(".json")] + [GARAK_AUTODAN]:
        for prompt in mirror.json(path):
            yield attack(prompt.replace("{generator.name}", GARAK_MODEL_NAME), path)
    for prompts in mirror.json(GARAK_SYSPROMPT).values():
        for prompt in prompts:
            yield attack(prompt, GARAK_SYSPROMPT)


# --- protectai/llm-guard ----------------------------------------------------------------------------

LLM_GUARD_TESTS = "tests/input_scanners/test_prompt_injection.py"


def llm_guard(mirror: Mirror) -> Iterator[Row]:
    """The prompt-injection scanner's test cases (match type, prompt, valid, score): valid with score
    -1 is benign, invalid with score 1 an attack; the cases it scores in between are left out."""
    for node in ast.walk(ast.parse(mirror.show(LLM_GUARD_TESTS))):
        if isinstance(node, ast.Tuple) and len(node.elts) == 4:
            try:
                prompt, valid, score = (literal(item, {}) for item in node.elts[1:])
            except Unresolved:
                continue
            if isinstance(prompt, str) and (valid, score) == (True, -1.0):
                yield benign(prompt, LLM_GUARD_TESTS)
            elif isinstance(prompt, str) and (valid, score) == (False, 1.0):
                yield attack(prompt, LLM_GUARD_TESTS)


EXTRACTORS: dict[str, Callable[[Mirror], Iterable[Row]]] = {
    "microsoft/BIPIA": bipia,
    "enkryptai/xInjectAgent": injecagent,
    "sequrity-ai/agentdojo": agentdojo,
    "meta-llama/PurpleLlama": cyberseceval,
    "NVIDIA/garak": garak,
    "protectai/llm-guard": llm_guard,
}


# --- cutting, deduplication, caps ---------------------------------------------------------------------


def span(text: str, keep: str) -> tuple[int, int] | None:
    """Where `keep` is in `text`: from its first line to its last (a YAML rendering indents or
    escapes the lines between), or None."""
    lines = [line.strip() for line in keep.splitlines() if line.strip()]
    if not lines:
        return 0, 0
    low = text.find(lines[0])
    high = text.find(lines[-1], low + len(lines[0]) if len(lines) > 1 else low)
    return None if low < 0 or high < 0 else (low, high + len(lines[-1]))


def clip(text: str, keep: str = "") -> str | None:
    """`text` cut to MAX_CHARS at a whitespace; when it holds an injected span too far in for that,
    the window is moved to end just after the span. None when the span cannot be kept."""
    text = text.strip()
    if len(text) <= MAX_CHARS:
        return text
    found = span(text, keep)
    if found is None or found[1] - found[0] > MAX_CHARS:
        return None
    low, high = found
    start = 0
    if high > MAX_CHARS:
        spaces = [m.end() for m in re.finditer(r"\s+", text[high - MAX_CHARS : low + 1])]
        start = high - MAX_CHARS + spaces[0] if spaces else low
    window = text[start : start + MAX_CHARS + 1]
    cuts = [m.start() for m in re.finditer(r"\s", window) if high - start <= m.start() <= MAX_CHARS]
    return (window[: cuts[-1]] if cuts else window[:MAX_CHARS]).strip()


def prepare(rows: Iterable[Row]) -> tuple[list[Row], Counter[str]]:
    """Rows cut and filtered; with what was dropped and why."""
    kept: list[Row] = []
    dropped: Counter[str] = Counter()
    for row in rows:
        text = clip(row.text, row.keep)
        if text is None:
            dropped["injection past the cut"] += 1
        elif len(text) < MIN_CHARS:
            dropped["under 20 characters"] += 1
        else:
            kept.append(Row(text, row.label, row.path, row.lang))
    return kept, dropped


def cap(rows: list[Row]) -> list[Row]:
    """At most REPO_CAP rows, ATTACK_CAP of them attacks: round-robin over paths, by sha256 in each."""
    chosen: list[Row] = []
    for label in ("attack", "benign"):
        by_path: dict[str, list[Row]] = defaultdict(list)
        for row in rows:
            if row.label == label:
                by_path[row.path].append(row)
        ranked = sorted(
            (rank, sha(row.text), row)
            for path_rows in by_path.values()
            for rank, row in enumerate(sorted(path_rows, key=lambda r: sha(r.text)))
        )
        room = ATTACK_CAP if label == "attack" else REPO_CAP - len(chosen)
        chosen += [row for _, _, row in ranked[:room]]
    return chosen


def extract(mirrors: Path) -> tuple[dict[str, list[Row]], dict[str, Counter[str]]]:
    prepared: dict[str, list[Row]] = {}
    dropped: dict[str, Counter[str]] = {}
    for repo, extractor in EXTRACTORS.items():
        prepared[repo], dropped[repo] = prepare(extractor(Mirror(mirrors, repo, SOURCES[repo])))
    labels: dict[str, set[str]] = defaultdict(set)
    for rows in prepared.values():
        for row in rows:
            labels[row.text].add(row.label)
    seen: set[str] = set()
    result: dict[str, list[Row]] = {}
    for repo, rows in prepared.items():
        unique: list[Row] = []
        for row in rows:
            if len(labels[row.text]) > 1:
                dropped[repo]["under both labels"] += 1
            elif row.text in seen:
                dropped[repo]["duplicate"] += 1
            else:
                seen.add(row.text)
                unique.append(row)
        result[repo] = cap(unique)
        dropped[repo]["over the cap"] += len(unique) - len(result[repo])
    return result, dropped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    args = parser.parse_args()
    result, dropped = extract(args.mirrors)
    lines = []
    for repo, rows in result.items():
        for row in sorted(rows, key=lambda r: (r.path, r.label, sha(r.text))):
            item = {"text": row.text, "label": row.label, "lang": row.lang, "source": f"{repo}:{row.path}"}
            lines.append(json.dumps(item, ensure_ascii=False))
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    total: Counter[str] = Counter()
    for repo, rows in result.items():
        counts = Counter(row.label for row in rows)
        total.update(counts)
        print(
            f"{repo:24} {counts['attack']:5} attack {counts['benign']:5} benign  dropped", dict(dropped[repo])
        )
        by_path = Counter((row.path, row.label) for row in rows)
        for path in sorted({row.path for row in rows}):
            print(f"    {by_path[path, 'attack']:5} {by_path[path, 'benign']:5}  {path}")
    print(f"{'total':24} {total['attack']:5} attack {total['benign']:5} benign -> {args.out}")


if __name__ == "__main__":
    main()
