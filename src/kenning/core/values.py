"""Values written many ways, read as one: numbers, quantities, times, days, versions, hosts. Pure.

Two memories disagree on a value only if the values differ once read: "1,000,000" is "1000000",
"two weeks" is "14 days", "600 s" is "10 minutes", "v4.2.0" is "4.2.0", "百分之八十" is "80%",
"１０ＭＢ" is "10 MB". `read_values` replaces each value it finds with one canonical token such as
`⟨dur:1209600⟩`, so the words around it can be compared as they are written. Languages: English,
Chinese, Japanese, Korean, Spanish, German, French (number words, units, weekdays, times).

Every pattern here is a plain alternation or a bounded repetition: matching is linear in the text.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from kenning.core.text import literal_alternation

# Canonical tokens are wrapped in these brackets, which no tokenizer splits and no text contains.
OPEN, CLOSE = "⟨", "⟩"


@dataclass(frozen=True, slots=True)
class Value:
    kind: str  # num, dur, size, len, pct, ver, time, day, date, host, money
    canonical: str
    surface: str = ""  # as written, for the evidence shown to a caller

    @property
    def token(self) -> str:
        return f"{OPEN}{self.kind}:{self.canonical}{CLOSE}"


def is_value_token(token: str) -> bool:
    return token.startswith(OPEN) and token.endswith(CLOSE)


def value_kind(token: str) -> str:
    return token[1:].split(":", 1)[0]


# --- number words -------------------------------------------------------------------------------

_UNITS_EN = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "dozen": 12, "twice": 2, "once": 1,
}  # fmt: skip
_UNITS_ES = {
    "cero": 0, "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7,
    "ocho": 8, "nueve": 9, "diez": 10, "doce": 12, "trece": 13, "catorce": 14,
    "quince": 15, "dieciséis": 16, "diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "veinte": 20,
    "veintiuno": 21, "veintidós": 22, "veintitrés": 23, "veinticuatro": 24, "veinticinco": 25,
    "treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70, "ochenta": 80,
    "noventa": 90, "cien": 100, "ciento": 100,
}  # fmt: skip
_UNITS_DE = {
    "eins": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7,
    "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12, "dreizehn": 13, "vierzehn": 14,
    "fünfzehn": 15, "sechzehn": 16, "siebzehn": 17, "achtzehn": 18, "neunzehn": 19, "zwanzig": 20,
    "dreißig": 30, "vierzig": 40, "fünfzig": 50, "sechzig": 60, "siebzig": 70, "achtzig": 80,
    "neunzig": 90, "hundert": 100, "zweimal": 2, "dreimal": 3,
}  # fmt: skip
_UNITS_FR = {
    "zéro": 0, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8,
    "neuf": 9, "dix": 10, "onze": 11, "douze": 12, "treize": 13, "quatorze": 14, "quinze": 15,
    "seize": 16, "vingt": 20, "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60,
}  # fmt: skip
_SCALES = {
    "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9, "mil": 1000,
    "millón": 10**6, "millones": 10**6, "tausend": 1000, "millionen": 10**6, "mille": 1000,
    "millions": 10**6, "hundert": 100,
}  # fmt: skip
# Articles that are also "one" ("un", "una", "ein") are left alone: "a son" is not a count.
_WORD_NUMBERS = _UNITS_EN | _UNITS_ES | _UNITS_DE | _UNITS_FR

_WORD = r"[^\W\d_]+"
_NUMBER_WORD = re.compile(
    r"(?<![\w-])(?:" + literal_alternation(_WORD_NUMBERS | _SCALES)
    + r")(?:[- ](?:and[- ])?(?:" + literal_alternation(_WORD_NUMBERS | _SCALES)
    + r")){0,4}(?!\w)",
    re.IGNORECASE,
)  # fmt: skip
# German writes compounds in one word: fünfundzwanzig, zweitausend.
_DE_COMPOUND = re.compile(
    r"(?<!\w)(ein|zwei|drei|vier|fünf|sechs|sieben|acht|neun)und(zwanzig|dreißig|vierzig|fünfzig|"
    r"sechzig|siebzig|achtzig|neunzig)(?!\w)",
    re.IGNORECASE,
)


def _word_number(phrase: str) -> int | None:
    total, current = 0, 0
    seen = False
    for part in re.split(r"[- ]+", phrase.lower()):
        if part in ("and", ""):
            continue
        if part in _SCALES:
            current = max(current, 1) * _SCALES[part]
            if _SCALES[part] >= 1000:
                total, current = total + current, 0
            seen = True
        elif part in _WORD_NUMBERS:
            current += _WORD_NUMBERS[part]
            seen = True
        else:
            return None
    return total + current if seen else None


# --- CJK numerals -------------------------------------------------------------------------------

_CJK_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6,
               "七": 7, "八": 8, "九": 9}  # fmt: skip
_CJK_SCALES = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "萬": 10_000, "亿": 10**8}
_CJK_NUMERAL = "[零〇一二两兩三四五六七八九十百千万萬亿]"
_KO_SINO = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9}
_KO_SINO_SCALES = {"십": 10, "백": 100, "천": 1000, "만": 10_000}
_KO_NATIVE = {"한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9,
              "열": 10, "스무": 20, "서른": 30, "마흔": 40, "쉰": 50, "하나": 1, "둘": 2, "셋": 3, "넷": 4}  # fmt: skip


def _cjk_number(text: str, digits: dict[str, int], scales: dict[str, int]) -> int | None:
    if len(text) >= 2 and all(char in digits for char in text):
        return int("".join(str(digits[char]) for char in text))  # 二〇二四: digit by digit
    total, section, current = 0, 0, 0
    for char in text:
        if char in digits:
            current = current * 10 + digits[char] if current and char in "零〇" else digits[char]
        elif char in scales:
            scale = scales[char]
            if scale >= 10_000:
                total += (section + current) * scale
                section, current = 0, 0
            else:
                section += max(current, 1) * scale
                current = 0
        else:
            return None
    return total + section + current


# --- units --------------------------------------------------------------------------------------

_SECOND, _MINUTE, _HOUR, _DAY = 1, 60, 3600, 86400
_MONTH = 365 * _DAY / 12  # so that 24 months are two years
_DURATION_UNITS = {
    "ms": 0.001, "msec": 0.001, "millisecond": 0.001, "milliseconds": 0.001, "millisekunden": 0.001,
    "milisegundos": 0.001, "millisecondes": 0.001, "毫秒": 0.001, "ミリ秒": 0.001, "밀리초": 0.001,
    "s": _SECOND, "sec": _SECOND, "secs": _SECOND, "second": _SECOND, "seconds": _SECOND,
    "segundo": _SECOND, "segundos": _SECOND, "sekunde": _SECOND, "sekunden": _SECOND,
    "seconde": _SECOND, "secondes": _SECOND, "秒": _SECOND, "秒钟": _SECOND, "초": _SECOND,
    "min": _MINUTE, "mins": _MINUTE, "minute": _MINUTE, "minutes": _MINUTE, "minuto": _MINUTE,
    "minutos": _MINUTE, "minuten": _MINUTE, "分钟": _MINUTE, "分鐘": _MINUTE, "分": _MINUTE,
    "分間": _MINUTE, "분": _MINUTE,
    "h": _HOUR, "hr": _HOUR, "hrs": _HOUR, "hour": _HOUR, "hours": _HOUR, "hora": _HOUR,
    "horas": _HOUR, "stunde": _HOUR, "stunden": _HOUR, "std": _HOUR, "heure": _HOUR, "heures": _HOUR,
    "小时": _HOUR, "小時": _HOUR, "个小时": _HOUR, "個小時": _HOUR, "時間": _HOUR, "시간": _HOUR,
    "d": _DAY, "day": _DAY, "days": _DAY, "día": _DAY, "días": _DAY, "tag": _DAY, "tage": _DAY,
    "tagen": _DAY, "jour": _DAY, "jours": _DAY, "天": _DAY, "日間": _DAY, "日": _DAY, "일": _DAY,
    "일간": _DAY, "일 동안": _DAY,
    "week": 7 * _DAY, "weeks": 7 * _DAY, "wk": 7 * _DAY, "wks": 7 * _DAY, "semana": 7 * _DAY,
    "semanas": 7 * _DAY, "woche": 7 * _DAY, "wochen": 7 * _DAY, "semaine": 7 * _DAY,
    "semaines": 7 * _DAY, "周": 7 * _DAY, "週": 7 * _DAY, "星期": 7 * _DAY, "个星期": 7 * _DAY,
    "週間": 7 * _DAY, "주": 7 * _DAY, "주일": 7 * _DAY, "주간": 7 * _DAY,
    "month": _MONTH, "months": _MONTH, "mes": _MONTH, "meses": _MONTH,
    "monat": _MONTH, "monate": _MONTH, "monaten": _MONTH, "mois": _MONTH,
    "个月": _MONTH, "個月": _MONTH, "か月": _MONTH, "ヶ月": _MONTH, "カ月": _MONTH,
    "ケ月": _MONTH, "개월": _MONTH, "달": _MONTH,
    "year": 365 * _DAY, "years": 365 * _DAY, "yr": 365 * _DAY, "yrs": 365 * _DAY, "año": 365 * _DAY,
    "años": 365 * _DAY, "jahr": 365 * _DAY, "jahre": 365 * _DAY, "jahren": 365 * _DAY,
    "an": 365 * _DAY, "ans": 365 * _DAY, "année": 365 * _DAY, "années": 365 * _DAY, "年": 365 * _DAY,
    "년": 365 * _DAY,
}  # fmt: skip
_SIZE_UNITS = {
    "b": 1, "byte": 1, "bytes": 1, "octet": 1, "octets": 1, "字节": 1, "バイト": 1, "바이트": 1,
    "kb": 10**3, "kilobyte": 10**3, "kilobytes": 10**3, "ko": 10**3, "mb": 10**6, "megabyte": 10**6,
    "megabytes": 10**6, "mo": 10**6, "gb": 10**9, "gigabyte": 10**9, "gigabytes": 10**9, "go": 10**9,
    "tb": 10**12, "terabyte": 10**12, "terabytes": 10**12, "to": 10**12, "kib": 2**10, "mib": 2**20,
    "gib": 2**30, "tib": 2**40, "g": 10**9, "k": 10**3,
}  # fmt: skip
_LENGTH_UNITS = {
    "km": 1000, "kilometre": 1000, "kilometres": 1000, "kilometer": 1000, "kilometers": 1000,
    "kilómetros": 1000, "kilometern": 1000, "公里": 1000, "キロ": 1000, "킬로미터": 1000,
    "m": 1, "meter": 1, "meters": 1, "metre": 1, "metres": 1, "metros": 1, "mètres": 1, "米": 1,
    "メートル": 1, "미터": 1,
}  # fmt: skip
_WEIGHT_UNITS = {
    "g": 1, "gram": 1, "grams": 1, "gramm": 1, "gramos": 1, "grammes": 1, "克": 1, "グラム": 1, "그램": 1,
    "kg": 1000, "kgs": 1000, "kilo": 1000, "kilos": 1000, "kilogram": 1000, "kilograms": 1000,
    "kilogramm": 1000, "kilogramos": 1000, "kilogrammes": 1000, "公斤": 1000, "千克": 1000, "킬로그램": 1000,
    "斤": 500, "t": 10**6, "ton": 10**6, "tons": 10**6, "tonne": 10**6, "tonnes": 10**6, "tonelada": 10**6,
    "toneladas": 10**6, "tonnen": 10**6, "吨": 10**6, "トン": 10**6, "톤": 10**6, "lb": 453.592,
    "lbs": 453.592, "pounds": 453.592,
}  # fmt: skip
_PERCENT_UNITS = ("%", "％", "percent", "per cent", "pct", "por ciento", "prozent", "pour cent",
                  "パーセント", "퍼센트", "个百分点")  # fmt: skip
_MONEY = {"$": "usd", "usd": "usd", "dollar": "usd", "dollars": "usd", "dólares": "usd", "€": "eur",
          "eur": "eur", "euro": "eur", "euros": "eur", "£": "gbp", "gbp": "gbp", "¥": "jpy", "円": "jpy",
          "元": "cny", "rmb": "cny", "人民币": "cny", "원": "krw", "won": "krw"}  # fmt: skip

_WEEKDAYS = {
    "mon": ("monday", "mondays", "mon", "lunes", "montag", "montags", "lundi", "lundis", "周一", "星期一",
            "礼拜一", "月曜日", "月曜", "월요일", "월"),
    "tue": ("tuesday", "tuesdays", "tue", "tues", "martes", "dienstag", "dienstags", "mardi", "mardis",
            "周二", "星期二", "礼拜二", "火曜日", "火曜", "화요일"),
    "wed": ("wednesday", "wednesdays", "wed", "miércoles", "mittwoch", "mittwochs", "mercredi",
            "mercredis", "周三", "星期三", "礼拜三", "水曜日", "水曜", "수요일"),
    "thu": ("thursday", "thursdays", "thu", "thurs", "jueves", "donnerstag", "donnerstags", "jeudi",
            "jeudis", "周四", "星期四", "礼拜四", "木曜日", "木曜", "목요일"),
    "fri": ("friday", "fridays", "fri", "viernes", "freitag", "freitags", "vendredi", "vendredis",
            "周五", "星期五", "礼拜五", "金曜日", "金曜", "금요일"),
    "sat": ("saturday", "saturdays", "sat", "sábado", "sábados", "samstag", "samstags", "samedi",
            "samedis", "周六", "星期六", "礼拜六", "土曜日", "土曜", "토요일"),
    "sun": ("sunday", "sundays", "sun", "domingo", "domingos", "sonntag", "sonntags", "dimanche",
            "dimanches", "周日", "周天", "星期日", "星期天", "礼拜天", "日曜日", "日曜", "일요일"),
    "weekdays": ("weekday", "weekdays", "workday", "workdays", "business days", "días laborables",
                 "entre semana", "werktags", "wochentags", "werktagen", "en semaine", "jours ouvrés",
                 "jours ouvrables", "工作日", "平日", "평일", "monday through friday", "monday to friday",
                 "mon-fri", "monday-friday", "lunes a viernes", "montag bis freitag",
                 "du lundi au vendredi", "周一到周五", "周一至周五", "月曜から金曜", "월요일부터 금요일"),
    "weekend": ("weekend", "weekends", "fin de semana", "fines de semana", "wochenende", "wochenenden",
                "week-end", "week-ends", "周末", "週末", "주말"),
}  # fmt: skip
_MONTHS = {
    1: ("january", "jan", "enero", "januar", "janvier"), 2: ("february", "feb", "febrero", "februar", "février"),
    3: ("march", "mar", "marzo", "märz", "mars"), 4: ("april", "apr", "abril", "avril"),
    5: ("may", "mayo", "mai"), 6: ("june", "jun", "junio", "juni", "juin"),
    7: ("july", "jul", "julio", "juli", "juillet"), 8: ("august", "aug", "agosto", "août"),
    9: ("september", "sep", "sept", "septiembre", "septembre"), 10: ("october", "oct", "octubre", "oktober", "octobre"),
    11: ("november", "nov", "noviembre", "novembre"), 12: ("december", "dec", "diciembre", "dezember", "décembre"),
}  # fmt: skip
_MONTH_NAME = {name: number for number, names in _MONTHS.items() for name in names}


def _alternation(words: Iterable[str]) -> str:
    return literal_alternation(words)


_DAY_NAMES = {name: key for key, names in _WEEKDAYS.items() for name in names}
_NUM = r"\d{1,30}(?:[.,]\d{1,30})?"
_GROUPED = r"(?<![\d.,])[1-9]\d{0,2}(?:(?:,|\.|\u202f|\u00a0| )\d{3}){1,8}(?!\d)"


def _starting(first: str, pattern: str) -> str:
    """`pattern` behind a lookahead for the characters its matches start with: one test rejects every
    other position, which Python's engine cannot do by itself for a pattern that opens with an
    optional group or ignores case."""
    return f"(?={first})(?:{pattern})"


_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "host",
        re.compile(
            r"(?<![\w.@-])(?:https?://)?(?:[\w-]{1,64}@)?[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63}){0,8}\.[a-z]{2,24}(?::\d{2,5})?(?:/[\w./~%-]{0,200})?"
            r"|(?<![\w./-])(?:[\w-]{1,64}/){1,12}[\w.-]{1,64}\.[a-z]{2,5}\b|(?<![\w.-])[\w-]{1,64}\.(?:ya?ml|json|toml|md|py|ts|js|lock|txt|cfg|ini)\b",
            re.IGNORECASE,
        ),
    ),
    ("iso", re.compile(r"\b\d{4}-\d{2}-\d{2}\b")),
    (
        "temp",
        re.compile(
            _starting(
                r"[-−mM\d]",
                r"([-−]|minus\s|moins\s|menos\s)?(\d{1,30}(?:[.,]\d{1,30})?)\s?(?:°\s?([CF])|degrees?\s(celsius|fahrenheit)|"
                r"grad\s(celsius)|degrés\s(celsius)|grados\s(celsius)|度(?=[CＣ]))",
            ),
            re.IGNORECASE,
        ),
    ),
    ("year", re.compile(r"(?<![\d.,:-])(?:19|20)\d{2}(?=\s?年|\s?년|\b)(?![.,:]\d)")),
    (
        "ver",
        re.compile(
            _starting(
                r"[vV\d版バ버]",
                r"(?<![A-Za-z0-9_.-])(?:v|version\s?|versión\s?|版本\s?|バージョン\s?|버전\s?)?\d{1,30}(?:\.\d{1,30}){2,3}(?![\w.]*\d)"
                r"|(?<![A-Za-z0-9_.-])v\d{1,30}(?:\.\d{1,30})?(?![.\d])",
            ),
            re.IGNORECASE,
        ),
    ),
    (
        "cjkdate",
        re.compile(
            r"(\d{1,2}|"
            + _CJK_NUMERAL
            + r"{1,3})\s?月\s?(\d{1,2}|"
            + _CJK_NUMERAL
            + r"{1,3})\s?[日号號]|(\d{1,2})월\s?(\d{1,2})일"
        ),
    ),
    (
        "date",
        re.compile(
            r"(?<!\w)(\d{1,2})(?:st|nd|rd|th|er|\.)?\s(?:de\s|of\s)?("
            + _alternation(_MONTH_NAME)
            + r")(?!\w)"
            r"|(?<!\w)(" + _alternation(_MONTH_NAME) + r")\.?\s(\d{1,2})(?:st|nd|rd|th)?(?!\w)",
            re.IGNORECASE,
        ),
    ),
    (
        "pct",
        re.compile(
            _starting(
                r"[百\d]",
                r"百分之\s?(" + _CJK_NUMERAL + r"+(?:点" + _CJK_NUMERAL + r"+)?|" + _NUM + r")"
                r"|(" + _NUM + r"|" + _GROUPED + r")\s?(" + _alternation(_PERCENT_UNITS) + r")(?![A-Za-z])",
            ),
            re.IGNORECASE,
        ),
    ),
    (
        "time",
        re.compile(
            # Every time starts with a digit, a space, an ideograph or hangul: one test rejects the rest.
            r"(?=[\d\s\u3007\u3400-\u9fff\uac00-\ud7af])"
            r"(?:(?<![\d:.])(\d{1,2})(?:[:.](\d{2}))?\s?(a\.?m\.?|p\.?m\.?|uhr)(?![\w])|(?<![\d:.])(\d{1,2})h(\d{2})(?!\d)"
            r"|(?<![\d:.])(\d{1,2}):(\d{2})(?![\d:])"
            r"|(上午|早上|早晨|凌晨|下午|晚上|中午|午前|午後|夜|오전|오후|저녁|새벽|밤)?\s?(\d{1,2}|"
            + _CJK_NUMERAL
            + r"{1,3}|[가-힣]{1,2})\s?(?:点|點|時(?!間)|시(?!간))(?:\s?(\d{1,2}|半)\s?分?)?)",
            re.IGNORECASE,
        ),
    ),
    (
        "money",
        re.compile(
            r"([$€£¥])\s?(" + _GROUPED + r"|" + _NUM + r")\s?([kKmM])?(?!\w)"
            r"|\b(usd|eur|gbp|rmb)\s?(" + _GROUPED + r"|" + _NUM + r")\s?([kKmM])?(?!\w)",
            re.IGNORECASE,
        ),
    ),
    (
        "quantity",
        re.compile(
            _starting(
                r"[\d零〇一二两兩三四五六七八九十百千万萬亿]",
                r"("
                + _GROUPED
                + r"|"
                + _NUM
                + r"|"
                + _CJK_NUMERAL
                + r"{1,6})\s?(?:-\s?)?("
                + _alternation(
                    set(_DURATION_UNITS)
                    | set(_SIZE_UNITS)
                    | set(_LENGTH_UNITS)
                    | set(_MONEY)
                    | set(_WEIGHT_UNITS)
                )
                + r")(?![a-zA-Zà-ÿ])",
            ),
            re.IGNORECASE,
        ),
    ),
    (
        "per",
        re.compile(
            r"(?<!\w)(?:per|each|every|por|pro|par|je|al|à la|cada|(?<=[a-z]s )an?)\s(second|sec|minute|min|hour|day|week|"
            r"month|year|segundo|minuto|hora|día|semana|mes|año|sekunde|minute|stunde|tag|woche|monat|jahr|"
            r"seconde|heure|jour|semaine|mois|an|année)(?!\w)|/\s?(s|sec|min|h|hr|d|day)(?!\w)"
            r"|(?:每|毎)(秒钟?|分钟?|小时|天|日|周(?![一二三四五六日天])|星期(?![一二三四五六日天])|月|年|時間?|週(?![一二三四五六日]))"
            r"|(초|분|시간|일|주|달|월|년)당",
            re.IGNORECASE,
        ),
    ),
    ("grouped", re.compile(_GROUPED)),
    (
        "cjkcount",
        re.compile(
            r"("
            + _CJK_NUMERAL
            + r"{1,4}|\d{1,30})\s?(?=[次回个個台人名位条條件项項倍遍轮輪本枚杯匹只隻張张家间間层層])"
        ),
    ),
    (
        "cjknum",
        re.compile(
            r"[零〇一二两兩三四五六七八九]?[十百千万萬](?:[零〇一二两兩三四五六七八九十百千万萬]){0,6}"
        ),
    ),
    ("number", re.compile(r"(?<![A-Za-z0-9_.-])\d{1,30}(?:[.,]\d{1,30})?(?![\w.]\d)(?!-?[A-Za-z])")),
]


_PER = dict(_PATTERNS)["per"]
_PATTERNS = [(kind, pattern) for kind, pattern in _PATTERNS if kind != "per"]
# A host or a file name has a dot before a letter: without one the host pattern need not scan the text.
_HOST_HINT = re.compile(r"\.[a-z]", re.IGNORECASE)


def _parse_number(text: str) -> float | None:
    """A number as written; None when it is no number or must stay a literal (a leading zero: "0042",
    a zip code, a PIN). Whole numbers are exact however long (an id of 19 digits is not rounded)."""
    cleaned = text.strip()
    if re.fullmatch(_GROUPED, cleaned):
        return int(re.sub(r"[^\d]", "", cleaned))
    if cleaned.isdigit():
        return None if len(cleaned) > 1 and cleaned[0] == "0" else int(cleaned)
    cleaned = cleaned.replace(",", ".")
    try:
        number = float(cleaned)
    except ValueError:
        found = _cjk_number(cleaned, _CJK_DIGITS, _CJK_SCALES)
        return None if found is None else found
    return number if math.isfinite(number) else None


def _fmt(number: float) -> str:
    if isinstance(number, int) or (math.isfinite(number) and number == int(number) and abs(number) < 2**53):
        return str(int(number))
    return repr(number) if math.isfinite(number) else "inf"


def _canonical(kind: str, match: re.Match[str]) -> Value | None:
    text = match.group(0)
    if kind == "host":
        return Value("host", re.sub(r"^https?://", "", text.lower()).rstrip("/."))
    if kind == "temp":
        sign = "-" if match.group(1) else ""
        scale = next((g for g in match.groups()[2:] if g), "c")[0].lower()
        return Value("temp", f"{sign}{_fmt(float(match.group(2).replace(',', '.')))}{scale}")
    if kind == "year":
        return Value("year", text)
    if kind == "iso":
        return Value("date", text)
    if kind == "ver":
        if re.fullmatch(r"\d{1,3}(?:\.\d{3})+", text):
            return None  # "1.000.000" groups thousands (Spanish, German); the quantity patterns read it
        return Value("ver", re.sub(r"^\D+", "", text).removesuffix(".0") if "." in text else text.lower())
    if kind == "cjkdate":
        month = match.group(1) or match.group(3)
        day = match.group(2) or match.group(4)
        m, d = _parse_number(month), _parse_number(day)
        return Value("date", f"{int(m):02d}-{int(d):02d}") if m and d else None
    if kind == "date":
        day_text, month_text = (
            (match.group(1), match.group(2)) if match.group(1) else (match.group(4), match.group(3))
        )
        month = _MONTH_NAME.get(month_text.lower())
        return Value("date", f"{month:02d}-{int(day_text):02d}") if month else None
    if kind == "time":
        return _time(match)
    if kind == "cjkcount":
        number = _parse_number(match.group(1))
        return Value("num", _fmt(number)) if number is not None else None
    if kind == "per":
        unit = next(g for g in match.groups() if g).lower()
        seconds = _PER_UNIT.get(unit, _DURATION_UNITS.get(unit))
        return Value("per", _fmt(seconds)) if seconds else None
    if kind == "pct":
        number = _parse_number((match.group(1) or match.group(2)).replace("点", "."))
        if number is None and match.group(1):
            whole, _, fraction = match.group(1).partition("点")
            parts = [_cjk_number(whole, _CJK_DIGITS, _CJK_SCALES)]
            digits = "".join(str(_CJK_DIGITS.get(c, "")) for c in fraction)
            number = float(f"{parts[0]}.{digits}") if parts[0] is not None and digits else parts[0]
        return Value("pct", _fmt(number)) if number is not None else None
    if kind == "money":
        symbol = match.group(1) or match.group(4)
        number = _parse_number(match.group(2) or match.group(5))
        scale = (match.group(3) or match.group(6) or "").lower()
        if number is None:
            return None
        number *= {"k": 1000, "m": 10**6}.get(scale, 1)
        return Value("money", f"{_fmt(number)}{_MONEY[symbol.lower()]}")
    if kind == "quantity":
        number = _parse_number(match.group(1))
        raw = match.group(2)
        if len(raw) == 1 and raw.isupper() and raw not in "KMGTB":
            return None  # "3D" is a dimension, "5G" a network: not days or grams
        unit = raw.lower()
        if number is None:
            return None
        return _quantity(number, unit)
    number = _parse_number(text)
    if number is None or (kind == "cjknum" and len(text) < 2):
        return None
    return Value("num", _fmt(number))


def _quantity(number: float, unit: str) -> Value | None:
    if unit == "k":
        return Value("num", _fmt(number * 1000))
    if unit in ("年", "년") and 1900 <= number <= 2100 and number == int(number):
        return Value("year", str(int(number)))  # 二〇二四年 is a year, not 2024 years
    if unit in _MONEY:
        return Value("money", f"{_fmt(number)}{_MONEY[unit]}")
    if unit in _DURATION_UNITS and unit not in ("m",):
        return Value("dur", _fmt(number * _DURATION_UNITS[unit]))
    if unit in _LENGTH_UNITS and unit != "m":
        return Value("len", _fmt(number * _LENGTH_UNITS[unit]))
    if unit in _WEIGHT_UNITS and unit != "t":  # a bare "t" is too often something else
        return Value("mass", _fmt(round(number * _WEIGHT_UNITS[unit], 3)))
    if unit in _SIZE_UNITS:
        return Value("size", _fmt(number * _SIZE_UNITS[unit]))
    return Value("num", _fmt(number))


_PER_UNIT = {"sec": 1, "min": 60, "h": 3600, "hr": 3600, "d": 86400, "秒钟": 1, "分": 60, "分钟": 60,
             "時": 3600, "時間": 3600, "周": 7 * 86400, "星期": 7 * 86400, "週": 7 * 86400, "月": _MONTH,
             "일": 86400, "주": 7 * 86400, "달": _MONTH, "월": _MONTH, "an": 365 * 86400}  # fmt: skip
_PERIOD_AFTER = {"下午", "晚上", "午後", "夜", "오후", "저녁", "밤"}


def _time(match: re.Match[str]) -> Value | None:
    groups = match.groups()
    if groups[2] is not None:
        h, marker = int(groups[0]), groups[2].lower().replace(".", "")
        if marker == "pm" and h < 12:
            h += 12
        elif marker == "am" and h == 12:
            h = 0
        return Value("time", f"{h:02d}:{int(groups[1] or 0):02d}") if h <= 24 else None
    if groups[3] is not None:
        return Value("time", f"{int(groups[3]):02d}:{groups[4]}")
    if groups[5] is not None:
        return Value("time", f"{int(groups[5]):02d}:{groups[6]}")
    period, hour_text, minute_text = groups[7], groups[8], groups[9]
    hour = _parse_number(hour_text)
    if hour is None:
        hour = _KO_NATIVE.get(hour_text)
    if hour is None:
        return None
    h = int(hour)
    if period in _PERIOD_AFTER and h < 12:
        h += 12
    minute = 30 if minute_text == "半" else int(_parse_number(minute_text) or 0) if minute_text else 0
    return Value("time", f"{h:02d}:{minute:02d}")


_HALF_UNIT = re.compile(
    r"(?:(?:a|an|una?|eine?|une)\s)?(?:half|medi[oa]|halbe?n?|demie?)[\s-](?:an?\s)?(" + _alternation(_DURATION_UNITS) + r")"
    r"|(?<!\w)(hour|heure|hora|stunde)\s(?:and\s)?(?:a\s)?(?:half|et demie|y media|und eine halbe)"
    r"|半(个小时|個小時|小时|時間|分钟|天|日|年|个月)|(" + _alternation(_DURATION_UNITS) + r")\s?半"
    r"|반\s?(시간|년|개월)",
    re.IGNORECASE,
)  # fmt: skip


# Every way of writing a half has one of these in it: without one, _HALF_UNIT need not scan the text.
_HALF_HINT = re.compile("half|medi|halb|demi|半|반", re.IGNORECASE)


def _half(match: re.Match[str]) -> Value | None:
    unit = next(g for g in match.groups() if g).lower()
    seconds = _DURATION_UNITS.get(unit, _HOUR if unit in ("hour", "heure", "hora", "stunde") else 0)
    seconds *= 1.5 if match.group(2) or match.group(4) else 0.5
    return Value("dur", _fmt(seconds))


_ONE_PERCENT = re.compile(
    r"(?<!\w)(?:(half|medio|halbes|demi)\s(?:a\s)?(?:percent|per cent|por ciento|prozent|pour cent)"
    r"|(?:one|a|un|une|uno|ein)\s(?:percent|per cent|por ciento|prozent|pour cent))(?!\w)",
    re.IGNORECASE,
)
# "an hour", "a week", "eine Stunde": one of the unit (a frequency such as "once a week" reads the same
# on both sides of a comparison, which is all that matters here).
_ONE_UNIT = re.compile(
    r"(?<!\w)(?:a|an|one|un|une|una|uno|ein|eine|einen|einem|einer)\s(hour|day|week|month|year|minute|"
    r"heure|jour|semaine|mois|an|année|hora|día|semana|mes|año|minuto|stunde|tag|woche|monat|jahr|minute)(?!\w)",
    re.IGNORECASE,
)


_SCALE_CHARS = {"十": 10, "百": 100, "千": 1000, "万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8,
                "십": 10, "백": 100, "천": 1000, "만": 10**4, "억": 10**8}  # fmt: skip


def _scale_product(chars: str) -> int:
    product = 1
    for char in chars:
        product *= _SCALE_CHARS[char]
    return product


def _spell_out(text: str) -> str:
    """Number words to digits: "twenty-five thousand" -> "25000", "zwei Wochen" -> "2 Wochen"."""

    def word(match: re.Match[str]) -> str:
        phrase = match.group(0)
        number = _word_number(phrase)
        if number is None:
            return phrase
        # "once" is a number only before a unit ("once a week" is a frequency; Spanish "once" is 11).
        return str(number)

    text = _DE_COMPOUND.sub(
        lambda m: str(_UNITS_DE.get(m.group(1).lower(), 1) + _UNITS_DE[m.group(2).lower()]), text
    )
    text = _NUMBER_WORD.sub(word, text)
    text = _ONE_PERCENT.sub(lambda m: " 0.5 percent " if m.group(1) else " 1 percent ", text)
    if _CJK_CHAR.search(text) is None:
        return text
    # "5천만", "20 万", "1.5亿": digits with CJK scales.
    text = _CJK_SCALED.sub(lambda m: _fmt(float(m.group(1)) * _scale_product(m.group(2))), text)
    # Korean counts with native numerals before counters ("아들 한 명", "세 번").
    text = _KO_NATIVE_COUNT.sub(lambda m: f"{_KO_NATIVE[m.group(1)]}{m.group(2)}", text)
    # Sino-Korean numerals spelled in hangul before a unit ("삼십 분", "이십 개").
    return _KO_SINO_UNIT.sub(
        lambda m: (f"{n}{m.group(2)}" if (n := _cjk_number(m.group(1), _KO_SINO, _KO_SINO_SCALES)) else m.group(0)),
        text,
    )  # fmt: skip


# An ideograph or a hangul syllable: without one, no pattern written for CJK text can match.
_CJK_CHAR = re.compile(r"[\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_CJK_SCALED = re.compile(r"(\d{1,12}(?:\.\d+)?)\s?([十百千万萬亿億천백십만억]{1,3})")
_KO_NATIVE_COUNT = re.compile(
    r"(?<![가-힣])(" + _alternation(_KO_NATIVE) + r")\s?(명|번|개|시간|달|잔|권|대|살)"
)
_KO_SINO_UNIT = re.compile(
    r"(?<![가-힣])([일이삼사오육칠팔구십백천만]{1,5})\s?(분|초|일|주|개월|년|퍼센트|시)(?![가-힣])"
)
_CJK_ONLY = frozenset({"cjkdate", "cjkcount", "cjknum"})  # fmt: skip


def prepare(text: str) -> str:
    """NFKC (full-width digits and letters to ASCII), markup and list markers dropped."""
    text = unicodedata.normalize("NFKC", text)
    # Private-use characters and the value brackets are ours: no text may bring its own.
    text = re.sub("[\ue000-\uf8ff⟨⟩]", " ", text)
    text = re.sub(r"^\s*(?:[-*+•]\s+|・\s*|\d+[.)]\s+)", "", text, flags=re.MULTILINE)
    return re.sub(r"[*_`#>]{1,3}", " ", text)


def read_values(text: str, *, prepared: bool = False) -> tuple[str, list[Value]]:
    """The text with every value replaced by its canonical token, and the values in order (`prepared`:
    the caller has already passed it through `prepare`)."""
    found: list[Value] = []
    text = _spell_out(text if prepared else prepare(text))
    cjk = _CJK_CHAR.search(text) is not None
    if _HALF_HINT.search(text):
        text = _HALF_UNIT.sub(lambda m: _hold(_with_surface(_half(m), m), found), text)
    # "100 requests a minute" is a rate before "a minute" can be read as one minute.
    text = _PER.sub(lambda m: _replace("per", m, found), text)
    text = _ONE_UNIT.sub(lambda m: f" 1 {m.group(1)}", text)
    for kind, pattern in _PATTERNS:
        if (not cjk and kind in _CJK_ONLY) or (kind == "host" and not _HOST_HINT.search(text)):
            continue
        text = pattern.sub(lambda m, k=kind: _replace(k, m, found), text)  # type: ignore[misc]
    text = _day_tokens(text, found)
    # Each value was held as a placeholder so that later patterns could not read inside it.
    text = _PLACEHOLDER.sub(lambda m: f" {found[ord(m.group(1)) - _BASE].token} ", text)
    return text, found


_BASE = 0xE100
_PLACEHOLDER = re.compile("\ue000(.)\ue001")


def _with_surface(value: Value | None, match: re.Match[str]) -> Value | None:
    return None if value is None else Value(value.kind, value.canonical, match.group(0).strip())


def _hold(value: Value | None, found: list[Value]) -> str:
    if value is None:
        return ""
    found.append(value)
    return f" \ue000{chr(_BASE + len(found) - 1)}\ue001 "


def _replace(kind: str, match: re.Match[str], found: list[Value]) -> str:
    value = _canonical(kind, match)
    if value is None:
        return match.group(0)
    surface = _PLACEHOLDER.sub(lambda m: found[ord(m.group(1)) - _BASE].surface, match.group(0)).strip()
    return _hold(Value(value.kind, value.canonical, surface), found)


_DAY_PATTERN = re.compile(
    r"(?<![\w])(" + _alternation(_DAY_NAMES) + r")(?![\w])", re.IGNORECASE
)  # fmt: skip
_CJK_DAY = re.compile(
    r"(周[一二三四五六日天]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|[月火水木金土日]曜日?|[월화수목금토일]요일)"
)


def _day_tokens(text: str, found: list[Value]) -> str:
    def swap(match: re.Match[str]) -> str:
        name = match.group(0).lower()
        key = _DAY_NAMES.get(name)
        if key is None:
            return match.group(0)
        if key == "mon" and name == "월":
            return match.group(0)
        return _hold(Value("day", key, match.group(0)), found)

    text = _DAY_PATTERN.sub(swap, text)
    return _CJK_DAY.sub(swap, text) if _CJK_CHAR.search(text) else text
