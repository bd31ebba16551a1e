"""Words that change what a statement means when it is compared with another one. Pure data + lookups.

Seven languages (English, Chinese, Japanese, Korean, Spanish, German, French). Each family answers
one question about a text:
- reversal: does it announce that a choice was dropped, replaced, retired, handed over or returned
  from ("Jenkins is retired", "we went back to REST", 改用, やめた, 그만, "ya no", "ist raus")?
- now: does it date itself as the current state ("now", 现在, 今は, 이제, ahora, jetzt, désormais)?
- negation: is it negated ("not", 不, ない, 안, "no", "nicht", "ne … pas")?
- addition: does it add to something already said ("also", 也, さらに, 또한, también, auch, aussi)?
- qualifiers: which scope words does it carry (every other, only, except, at most, at least, ...),
  each mapped to one id so "every other", 隔周, 격주 and "jeden zweiten" compare equal;
- comparison: does it rank alternatives ("A over B", 而不是, より, 보다, "statt", "plutôt que"), so
  that swapping them is a reversal.
Matching is case-insensitive on NFKC text; every pattern is an alternation of literals (linear).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kenning.core.text import literal_alternation


def _words(items: Iterable[str]) -> str:
    """Latin phrases match whole words; CJK phrases match anywhere."""
    latin: list[str] = []
    cjk: list[str] = []
    for item in set(items):
        (cjk if re.search(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]", item) else latin).append(item.lower())
    parts = []
    if latin:
        parts.append(r"(?<![\w])(?:" + literal_alternation(latin) + r")(?![\w])")
    if cjk:
        parts.append("(?:" + literal_alternation(cjk) + ")")
    return "|".join(parts)


# fmt: off
_REVERSAL = (
    # English
    "no longer", "not anymore", "anymore", "any more", "stopped", "stop using", "quit", "quitted",
    "dropped", "drop", "abandoned", "ditched", "retired", "retiring", "sunset", "sunsetted", "sunsetting",
    "deprecated", "decommissioned", "replaced", "replacing", "replaces", "instead", "switched",
    "switching", "migrated", "migrating", "moved off", "moving off", "moved away", "moved to",
    "moved from", "went back", "going back", "back to", "reverted", "revert", "rolled back", "returned to",
    "gave up", "given up", "got rid of", "phased out", "is out", "are out", "took over", "taken over",
    "takes over", "taking over", "handed over", "hands over", "handed off", "handed", "passed to",
    "transferred", "has become", "have become", "became", "now owned", "now maintained", "now handled",
    "no more", "not use", "not using", "don't use", "do not use", "doesn't use", "never use", "avoid",
    "banned", "forbidden", "disabled", "turned off", "killed", "scrapped", "dumped", "superseded",
    "obsolete", "reassigned", "moved", "changed", "switch", "swapped", "traded", "ended", "cancelled",
    "canceled", "upgraded", "downgraded", "bumped", "raised", "lowered", "increased", "reduced",
    "extended", "shortened", "pushed to", "postponed", "rescheduled", "pushed back", "brought forward",
    "relocated", "renamed", "is now", "are now", "was changed", "were changed", "now runs", "now uses",
    "now lives",
    # Chinese
    "不再", "不用", "不使用", "停止", "停用", "放弃", "弃用", "废弃", "淘汰", "下线", "退役", "取消", "移除", "改用", "改为", "改成", "改到",
    "换成", "换为", "换用", "换到", "替换", "取代", "代替", "迁移", "迁出", "迁到", "迁至", "切换", "转向", "转到", "转为", "回到", "又回",
    "重新用", "回归", "恢复使用", "移交", "交给", "接手", "接管", "转交", "禁止", "避免", "戒掉", "戒了", "变成", "变为", "调整为", "调整到",
    "已改", "不要", "别再", "换了", "撤掉", "砍掉", "不再使用", "推迟", "提前到", "升级到", "升级为", "升到", "降级到", "降到", "提高到", "提升到",
    "降低到", "增加到", "减少到", "延长到", "缩短到", "调到", "调成", "改在", "搬到", "搬去", "移到", "上调", "下调", "アップグレード", "引き上げ",
    "引き下げ", "延期", "前倒し", "短縮", "延長", "増や", "減ら", "업그레이드", "올렸", "낮췄", "늘렸", "줄였", "연기", "앞당",
    # Japanese
    "やめた", "やめる", "やめて", "やめました", "止めた", "辞めた", "廃止", "撤去", "撤廃", "終了", "卒業", "乗り換え", "切り替え", "切替", "移行",
    "置き換え", "置換", "代わりに", "戻した", "戻る", "戻った", "戻して", "戻しました", "引き継", "使わない", "使わなくな", "使っていない", "使用しない",
    "禁止", "非推奨", "変更", "変わった", "移った", "移管", "廃止した", "やめ", "見直し", "外した", "なくなった",
    # Korean
    "그만", "중단", "중지", "폐기", "폐지", "종료", "더 이상", "안 쓴", "안 쓰", "쓰지 않", "사용하지 않", "대신", "바꿨", "바꾸었", "바꾸기로",
    "바뀌었", "바뀐", "교체", "전환", "옮겼", "옮기", "이전했", "넘어갔", "넘겼", "넘겨", "인계", "맡게", "돌아갔", "돌아왔", "되돌", "복귀",
    "금지", "변경", "갈아탔", "없앴",
    # Spanish
    "ya no", "dejamos", "dejó", "dejaron", "dejado", "abandonamos", "abandonó", "abandonado", "abandonada",
    "descartado", "descartada", "descartamos", "retirado", "retirada", "retiramos", "reemplazado",
    "reemplazada", "reemplazamos", "sustituido", "sustituida", "sustituimos", "en lugar de", "en vez de",
    "cambiamos", "cambió", "cambiado", "migramos", "migrado", "migró", "pasamos a", "pasó a", "pasaron a",
    "volvimos", "volvió", "volver a", "de nuevo", "otra vez", "le pasó", "traspasó", "traspasado",
    "asumió", "prohibido", "obsoleto", "obsoleta", "eliminamos", "eliminado", "sustituye", "reemplaza",
    "se encarga ahora", "ahora se encarga",
    # German
    "nicht mehr", "kein mehr", "keine mehr", "abgeschafft", "abgelöst", "ersetzt", "stattdessen",
    "umgestiegen", "gewechselt", "wechseln", "migriert", "umgezogen", "zurück zu", "zurück auf",
    "zurückgekehrt", "zurückgewechselt", "ist raus", "sind raus", "eingestellt", "aufgegeben",
    "abgeschaltet", "ausgemustert", "übernommen", "übernimmt", "übergeben", "abgegeben", "verboten",
    "veraltet", "wieder", "umgestellt", "verlegt", "verschoben", "ersetzen", "zieht um", "seit dem umzug",
    # French
    "ne plus", "n'plus", "plus jamais", "abandonné", "abandonnée", "abandonnons", "laissé tomber",
    "arrêté", "arrêtée", "arrêter", "arrêtons", "remplacé", "remplacée", "remplaçons", "remplace",
    "à la place", "migré", "migrée", "basculé", "basculée", "passé à", "passés à", "passée à", "passé de",
    "revenu", "revenus", "revenue", "retour à", "de nouveau", "à nouveau", "repris", "reprend",
    "transféré", "transférée", "confié", "confiée", "cédé", "interdit", "obsolète", "retiré", "retirée",
    "décommissionné", "abandon", "remplacer", "déplacé", "reporté", "déménagé", "a déménagé", "se mudó",
    "nos mudamos", "se mudaron", "mudanza", "引っ越", "転居", "移住", "搬家", "이사", "gekündigt", "planänderung",
    "doch", "umentschieden", "abbestellt", "abgesagt", "abandonne", "abandonnent", "passera", "passe à",
    "change de", "a changé", "ont changé", "résilié", "cancelado", "cancelamos", "cambia a", "ha cambiado",
    "cambió de", "rescindido", "改主意", "改变主意", "改变了", "换掉", "解约", "终止", "下げた", "上げた", "引き下げた", "引き上げた",
    "解約", "契約終了", "考えを変え", "계약을 종료", "해지", "마음을 바꿨", "바꾸었다", "내렸", "올렸다", "changed their mind",
    "changed his mind", "changed her mind", "changed my mind", "concluded", "no longer needed",
    "terminated", "ended the contract",
)
_NOW = (
    "now", "nowadays", "these days", "currently", "from now on", "as of", "going forward", "today", "现在",
    "如今", "目前", "从现在起", "今后", "以后", "已经", "今は", "現在", "最近は", "これから", "今後", "이제", "지금은", "요즘", "앞으로", "현재",
    "ahora", "actualmente", "hoy en día", "a partir de ahora", "desde ahora", "jetzt", "nun", "inzwischen",
    "mittlerweile", "ab sofort", "künftig", "désormais", "maintenant", "dorénavant", "à présent",
    "actuellement",
    # a decision that was revisited
    "in the end", "eventually", "finally", "al final", "finalmente", "schließlich", "letztendlich",
    "finalement", "最终", "最后", "最終的に", "結局", "결국", "최종적으로", "done with", "fini avec", "recently", "lately",
    "since this month", "since this week", "desde este mes", "ab diesem monat", "seit diesem monat",
    "depuis ce mois", "depuis peu", "最近", "近来", "这阵子", "최근", "요즘은", "この頃", "近頃", "últimamente",
    "recientemente", "neuerdings", "dernièrement",
)
_NEGATION_LATIN = (
    "not", "no", "never", "without", "don't", "doesn't", "didn't", "won't", "isn't", "aren't", "wasn't",
    "can't", "cannot", "nunca", "sin", "nicht", "kein", "keine", "keinen", "keiner", "nie", "ohne", "ne",
    "n'", "pas", "jamais", "sans", "aucun", "aucune", "ni",
    # a stance refused is a negated stance: "likes" against "dislikes"
    "dislike", "dislikes", "disliked", "hate", "hates", "hated", "detest", "detests", "odia", "odio",
    "odian", "déteste", "détestent", "hasst", "hassen",
)
# Spanish "no" is both "not" and "no": counted as negation like English.
_NEGATION_CJK = ("不", "没", "沒", "别", "無", "无", "未", "ない", "ません", "ず", "なし", "않", "못", "없")
_ADDITION = (
    "also", "as well", "additionally", "in addition", "besides", "on top of that", "也", "另外", "此外", "同时",
    "并且", "而且", "また", "さらに", "加えて", "ほかに", "他に", "또한", "게다가", "추가로", "también", "además", "asimismo",
    "auch", "außerdem", "zusätzlich", "ebenfalls", "aussi", "également", "en plus", "de plus",
)
_QUALIFIERS: dict[str, tuple[str, ...]] = {
    "alternate": (
        "every other", "every second", "alternate", "biweekly", "bi-weekly", "fortnightly",
        "every two weeks", "隔周", "每隔一周", "每两周", "每隔两周", "双周", "隔週", "隔月", "격주", "격월", "cada dos",
        "cada quince días", "jeden zweiten", "jede zweite", "jedes zweite", "alle zwei", "alle 14 tage",
        "sur deux", "tous les quinze jours", "toutes les deux semaines", "un sur deux", "une sur deux",
        "quinzaine",
    ),
    "only": (
        "only", "solely", "exclusively", "只", "仅", "只有", "仅限", "だけ", "のみ", "限定", "뿐", "solo", "sólo",
        "solamente", "únicamente", "nur", "ausschließlich", "lediglich", "seulement", "uniquement",
        "ne que", "exclusivement",
    ),
    "except": (
        "except", "excluding", "unless", "other than", "apart from", "除了", "除外", "以外", "除く", "제외", "빼고",
        "excepto", "salvo", "menos", "außer", "ausgenommen", "abgesehen von", "sauf", "excepté", "hormis",
        "à part",
    ),
    "at_most": (
        "at most", "no more than", "not more than", "最多", "不超过", "不能超过", "不得超过", "至多", "최대", "이하",
        "como máximo", "höchstens", "au plus", "au maximum",
    ),
    "at_least": (
        "at least", "no less than", "至少", "最少", "不少于", "少なくとも", "最低", "최소", "이상", "al menos",
        "como mínimo", "mindestens", "wenigstens", "au moins", "au minimum",
    ),
    "always": (
        "always", "总是", "一直", "始终", "常に", "いつも", "항상", "늘", "siempre", "immer", "toujours",
    ),
    "never": ("never", "从不", "从来不", "決して", "절대", "nunca", "jamás", "nie", "niemals", "jamais"),
    "sometimes": (
        "sometimes", "occasionally", "有时", "偶尔", "時々", "たまに", "가끔", "때때로", "a veces", "manchmal",
        "gelegentlich", "parfois", "de temps en temps",
    ),
    "usually": (
        "usually", "mostly", "generally", "typically", "通常", "一般", "大多", "普通", "たいてい", "대개", "보통",
        "normalmente", "generalmente", "meistens", "normalerweise", "généralement", "d'habitude",
        "habituellement",
    ),
}
# "A over B": the alternative after the marker is the one refused; in Japanese and Korean ("BよりA",
# "B보다 A", "B 대신 A") it is the one before.
_COMPARISON_AFTER = (
    "over", "rather than", "instead of", "versus", "vs", "in favour of", "in favor of", "而不是", "而非", "优先于",
    "胜过", "en lugar de", "en vez de", "antes que", "statt", "anstatt", "lieber als", "plutôt que",
    "au lieu de", "→", "->",
)
_COMPARISON_BEFORE = ("より", "よりも", "보다", "대신", "比起")

# fmt: on
REVERSAL = re.compile(_words(_REVERSAL), re.IGNORECASE)
NOW = re.compile(_words(_NOW), re.IGNORECASE)
# "too" adds only at the end of a clause ("she likes tea too"), not in "too busy".
ADDITION = re.compile(_words(_ADDITION) + r"|(?<![\w])too(?=\s*(?:[.,;:!?)]|$))", re.IGNORECASE)
COMPARISON_AFTER = re.compile(_words(_COMPARISON_AFTER), re.IGNORECASE)
COMPARISON_BEFORE = re.compile(_words(_COMPARISON_BEFORE), re.IGNORECASE)
_NEGATION = re.compile(
    _words(_NEGATION_LATIN) + "|" + "|".join(map(re.escape, _NEGATION_CJK)) + r"|(?<![가-힣])안\s",
    re.IGNORECASE,
)
_QUALIFIER = {key: re.compile(_words(words), re.IGNORECASE) for key, words in _QUALIFIERS.items()}
# Negations that are part of a reversal phrase are counted there, not twice.
_NOT_NEGATION = re.compile(
    r"(?<![\w])(?:no longer|not anymore|no more|rather than|not only|nicht nur|non seulement|no solo|"
    r"no sólo|ya no|nicht mehr|ne plus|no more than|no less than|not more than|not less than|"
    r"nicht mehr als|pas plus de|no más de)(?![\w])"
    r"|(?:而不是|不仅|不但|不只|不是|不如|不能超过|不得超过|不超过|不可超过|不多于|不少于|不低于|不高于)",
    re.IGNORECASE,
)  # fmt: skip


# Negated reversals written around a verb: "ne veut plus", "n'utilise plus", "keine Briefe mehr".
_SPLIT_REVERSAL = re.compile(
    r"(?<![\w])(?:ne\s+\w+\s+plus|n['’]\w+\s+plus|keine?[nmrs]?\s+\w+\s+mehr|nicht\s+\w+\s+mehr|"
    r"nur\s+noch|no\s+\w+\s+más|不\S{0,2}了)(?![\w])",
    re.IGNORECASE,
)
# Limits are not reversals: "no more than four hours".
_LIMIT_PHRASES = re.compile(
    r"(?<![\w])(?:no more than|no less than|not more than|not less than|nicht mehr als|pas plus de|no más de)(?![\w])",
    re.IGNORECASE,
)


def reversal(text: str) -> list[str]:
    text = _LIMIT_PHRASES.sub(" ", text)
    found = [m.group(0).lower() for m in REVERSAL.finditer(text)]
    found += [
        "split:" + re.sub(r"\s+\S+\s+", " … ", m.group(0).lower()) for m in _SPLIT_REVERSAL.finditer(text)
    ]
    return found


def now(text: str) -> bool:
    return NOW.search(text) is not None


def addition(text: str) -> bool:
    return ADDITION.search(text) is not None


def mark_comparisons(text: str, after: str, before: str) -> str:
    """The text with each comparison marker replaced by a token saying which side it refuses."""
    text = COMPARISON_AFTER.sub(f" {after} ", text)
    return COMPARISON_BEFORE.sub(f" {before} ", text)


def negations(text: str) -> int:
    return len(_NEGATION.findall(_NOT_NEGATION.sub(" ", text)))


def qualifiers(text: str) -> frozenset[str]:
    return frozenset(key for key, pattern in _QUALIFIER.items() if pattern.search(text))


def strip_cues(text: str) -> str:
    """The text without its cue phrases, so that only what it is about is left to compare."""
    for pattern in (_LIMIT_PHRASES, REVERSAL, _SPLIT_REVERSAL, NOW, ADDITION, _NOT_NEGATION, _NEGATION):
        text = pattern.sub(" ", text)
    return text
