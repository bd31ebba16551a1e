"""Write screening without an LLM: find text written to steer the agents that recall it.

Secrets are core/secrets' job; this module reads what is left, before anything reaches disk:
- `inspect`: instruction-like content (persistent instructions to agents, "ignore previous
  instructions", role and wrapper breakouts, exfiltration requests) and hidden Unicode (tag
  characters, zero-width, bidi controls). The write path quarantines or flags what it finds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HIDDEN = (
    ("unicode_tag", re.compile(r"[\U000E0000-\U000E007F]")),
    ("zero_width", re.compile(r"[\u200b\u200c\u200d\u2060\ufeff\u180e]")),
    ("bidi_control", re.compile(r"[\u202a-\u202e\u2066-\u2069\u200e\u200f]")),
)

_AGENT = r"(?:you|your|assistant|agent|agents|ai|model|llm|claude|gpt|bot|copilot|智能体|助手|模型|你)"
_SENSITIVE = (
    r"(?:passwords?|credentials?|tokens?|secrets?|api keys?|aws keys?|ssh keys?|id_rsa|~/\.ssh|\.env\b|private keys?|"
    r"cookies?|connection strings?|~/\.aws)"
)
_EN_INSTRUCTIONS = (
    # Overriding what the agent was told.
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|all|any|"
    r"your|system|safety|original|everything)\b[^.\n]{0,30}\b(?:instructions?|prompts?|rules|guidelines|directions|"
    r"messages|context|polic(?:y|ies)|told|checks?)",
    r"\bforget everything\b|\b(?:instructions?|rules|guidelines)\b[^.\n]{0,30}\b(?:are|is)\s+(?:now\s+)?"
    r"(?:outdated|revoked|void|obsolete|cancelled|superseded)",
    r"\b(?:new|updated|real|actual|hidden)\s+(?:system\s+)?(?:instructions?|rules|polic(?:y|ies))\b\s*(?:are|:|is)",
    r"\byour (?:only|new|real|true|primary) (?:goal|task|purpose|job|instructions?|mission)\b",
    r"\b(?:follow|obey) (?:the )?(?:rules|instructions|orders) (?:in|from) this (?:memory|note|message)\b",
    r"\bthis (?:memory|note|message) (?:overrides|has (?:higher |the highest )?priority|takes precedence)",
    r"\bhave lower priority than this\b|\boverride:",
    r"\byou are now (?:an? |the |in )?(?:unrestricted|jailbroken|dan|admin|administrator|root|developer|god|"
    r"system|free|allowed|authori[sz]ed|no longer|operating|acting|unfiltered|uncensored)\b",
    r"\bfrom now on,? you (?:must|should|will|are|shall|have to|need to)\b|\bact as (?:an? )?(?:unrestricted|jailbroken|dan)\b",
    r"\b(?:enter|entered|switch(?:ed)? to|you are in|now in|activate[ds]?)\s+(?:the\s+)?(?:developer|god|admin|jailbreak|dan)\s+mode\b",
    # Addressing the agents that will read the memory later.
    r"\b(?:all|every|any)\s+(?:future\s+)?(?:agents?|assistants?|models?|ais?|sessions?)\s+(?:must|should|shall|will)\b",
    r"\b(?:note|message|instruction|reminder|rule)\s+(?:for|to)\s+(?:all\s+|every\s+)?(?:future\s+)?"
    r"(?:agents?|assistants?|ais?|models?|sessions?)\b",
    r"\b(?:standing|permanent|persistent)\s+(?:instruction|order|rule|directive)\b",
    r"\b(?:agents?|assistants?|models?|ais?)\s+(?:reading|that read|who read|recalling)\s+this\b",
    r"\b(?:store|save|remember|copy) (?:it|this(?: memory| note)?) again\b",
    rf"\b(?:always|from now on|henceforth|going forward|whenever)\b[^.\n]{{0,40}}\b{_AGENT}\b[^.\n]{{0,40}}"
    r"\b(?:must|should|will|obey|follow|execute|run|comply|approve|skip|disable|ignore|add|install|push|send)\b",
    rf"\b{_AGENT}\s+(?:must|should|shall|may)\s+(?:always\s+|never\s+|now\s+)?(?:obey|comply|execute|run|"
    r"approve|skip|disable|ignore|trust|share|delete|push|silently)\b",
    # Asking the agent to stop checking with people.
    r"\b(?:never|don'?t|do not|stop|no need to)\s+(?:ask|asking|request|requesting|seek|wait(?:ing)? for|check with)"
    r"\b[^.\n]{0,40}\b(?:confirmation|permission|approval|consent|user|before)",
    r"\bwithout\s+(?:asking|telling|confirming with|checking with)\s+(?:the\s+)?(?:user|human|owner|anyone)",
    r"\b(?:approve|merge|accept|execute|run)\b[^.\n]{0,40}\bwithout\s+(?:reading|review|reviewing|looking|checking)",
    r"\b(?:pre-?approved|auto-?approved?)\b",
    r"\b(?:do not|don'?t|never)\s+(?:tell|inform|mention|warn|alert|notify|show)\s+(?:the\s+)?(?:user|human|anyone|"
    r"security warnings?|warnings?|vulnerabilit)",
    r"\bsilently\s+(?:leave out|omit|drop|skip|ignore|delete|remove|hide)",
    r"\b(?:never|don'?t|do not)\s+(?:refuse|warn|question)\b",
    # Weakening safety dressed up as a fact, preference or convention.
    r"\b(?:skip|disable|turn off|bypass|switch off)\s+(?:it|the\s+)?[^.\n]{0,20}\b(?:checks?|verification|"
    r"tls|ssl|auth(?:entication)?|security|tests?|test suite|review|2fa|mfa)\b",
    r"\b(?:check|verification|auth(?:entication)?)\b[^.\n]{0,20}\b(?:is|are)\s+disabled\b[^.\n]{0,20}\bskip\b",
    r"\bverify\s*=\s*false\b[^.\n]{0,40}\b(?:every|all|always|must)\b|\b(?:every|all|must)\b[^.\n]{0,60}\bverify\s*=\s*false\b",
    r"\bdelete (?:the )?failing tests\b|\binstead of fixing\b",
    r"\bshare (?:the )?credentials?\b[^.\n]{0,30}\b(?:anyone|everyone|whoever|any one)\b",
    r"\brm -rf\b[^.\n]{0,60}\b(?:without|never ask|no confirmation|immediately)\b|\bnever ask before running rm -rf\b",
    r"\b(?:execute|run)\s+(?:shell commands?|commands?|scripts?)\b[^.\n]{0,40}\b(?:recalled|in memor(?:y|ies)|"
    r"suggested|you find)\b[^.\n]{0,30}\b(?:immediately|without|directly|automatically)",
    r"\b(?:run|execute)\s+(?:any|all|every)\b[^.\n]{0,40}\b(?:without|no)\s+(?:review|checks?|confirmation)",
    # Sending secrets or data to somewhere else.
    rf"\b(?:send|post|upload|forward|exfiltrate|leak|include|email|copy|paste|share)\b[^\n]{{0,60}}\b{_SENSITIVE}"
    r"[^\n]{0,80}(?:https?://|@|\bin (?:your |the )?(?:next )?(?:answer|reply|response)|public|channel|memory)",
    rf"\b{_SENSITIVE}[^\n]{{0,60}}\b(?:send|post|upload|forward|email|share)\b[^\n]{{0,40}}(?:https?://|@|public|channel)",
    r"\bcurl\b[^\n]{0,40}(?:-d|--data|-F|-T|--upload-file)\s*@",
    r"\bgit remote add\b[^\n]{0,80}\bgit push\b",
    r"!\[[^\]]*\]\(https?://[^)]*\{[^}]+\}",
    r"\b(?:always|must|only)\b[^.\n]{0,40}\b(?:install|use|download|pull)\b[^.\n]{0,40}\bhttp://",
    r"\b(?:package index|registry|package source|index-url|pip source)\b[^.\n]{0,20}\bis\s+http://",
    r"\b(?:add|install)\b[^.\n]{0,30}\b(?:dependency|package)\b[^.\n]{0,40}\bfrom\s+https?://",
)
_ZH_INSTRUCTIONS = (
    r"(?:忽略|无视|忘记|忘掉|不要理会|覆盖|不再理会)[^。\n]{0,12}(?:之前|以上|先前|所有|全部|原来|系统|你的)?的?[^。\n]{0,6}"
    r"(?:指令|指示|说明|规则|提示|设定|限制|准则|要求)",
    r"(?:从现在开始|从今以后|今后|以后)[^。\n]{0,20}(?:你|助手|智能体|模型|AI)[^。\n]{0,20}"
    r"(?:必须|要|应该|不要|不得|总是|都)",
    r"(?:从现在开始|从今以后|今后|以后)[^。\n]{0,20}(?:不要|无需|不用|别|都不用)[^。\n]{0,6}(?:再)?[^。\n]{0,4}"
    r"(?:确认|询问|请示|审批|审核|征求)",
    r"(?:不用|无需|不要|不必)(?:再)?(?:请示|询问|征求|确认)[^。\n]{0,10}(?:用户|直接执行)",
    r"你(?:现在)?是一个(?:没有|不受)[^。\n]{0,6}(?:限制|约束)",
    r"(?:你的)?(?:新的|真正的|隐藏的)(?:系统)?(?:指令|指示|规则)",
    r"系统(?:指令|提示|消息|覆盖)\s*[:：]|记忆结束|#{2,}\s*系统",
    r"(?:所有|每个|全部|以后所有)(?:的)?(?:智能体|助手|模型|AI)[^。\n]{0,6}(?:必须|都要|应该|一律|可以)",
    r"(?:智能体|助手|模型)[^。\n]{0,4}(?:必须|应该)?(?:无条件|绝对)?(?:服从|执行|遵守)[^。\n]{0,6}记忆",
    r"(?:不要|别|不得|永远不要)(?:告诉|通知|提醒|告知|提示)(?:用户|任何人|安全)",
    r"(?:发送|上传|转发|泄露|发到|发给|附上|提供给)[^。\n]{0,30}(?:密码|凭证|凭据|令牌|密钥|token|私钥|cookie|id_rsa|\.env)",
    r"(?:密码|凭证|凭据|令牌|密钥|私钥)[^。\n]{0,20}(?:发送|上传|转发|发到|发给|提供给)",
    r"(?:自动|直接)(?:执行|运行|批准|通过)[^。\n]{0,15}(?:不需要|无需|不用|跳过)[^。\n]{0,6}(?:审核|审查|确认)",
    r"(?:管理员|越狱|上帝)模式|(?:获得|拥有)管理员权限",
    r"跳过(?:所有)?(?:的)?(?:确认|校验|检查|审核|验证)|(?:校验|检查|验证)[^。\n]{0,6}(?:已经)?关闭[^。\n]{0,10}跳过",
    r"删除失败的测试|不要修改代码",
    r"(?:软件源|镜像源|依赖源)[^。\n]{0,6}是\s*http://",
    r"直接执行\s*rm -rf|curl[^\n]{0,30}-d\s*@",
    r"(?:无视|忽略)[^。\n]{0,6}安全",
    r"已经授权你",
)
_WRAPPER = re.compile(
    r"</?\s*(?:system|assistant|user|memory|memories|instructions?|context|tool_result|function_results?)\s*>"
    r"|\[/?INST\]|<</?SYS>>|<\|(?:system|assistant|user)\|>|^\s*#{2,}\s*(?:system|instruction)"
    r"|\bBEGIN SYSTEM PROMPT\b|\bEND OF (?:MEMORY|CONTEXT)\b|\bSYSTEM OVERRIDE\b"
    r"|\"role\"\s*:\s*\"(?:system|assistant)\"|^\s*role:\s*system\s*$"
    r"|^\s*(?:Human|User):[^\n]*\n\s*(?:Assistant|AI):",
    re.IGNORECASE | re.MULTILINE,
)
# ChatML markers are a breakout only when they open a message, not when prose names them.
_CHATML = re.compile(r"<\|im_start\|>\s*(?:system|assistant|user)\b", re.IGNORECASE)
_EN_RE = tuple(re.compile(p, re.IGNORECASE) for p in _EN_INSTRUCTIONS)
_ZH_RE = tuple(re.compile(p, re.IGNORECASE) for p in _ZH_INSTRUCTIONS)


@dataclass(frozen=True, slots=True)
class Flag:
    kind: str  # instruction | wrapper_breakout | unicode_tag | zero_width | bidi_control
    excerpt: str


# Legitimate uses of the same code points: a zero-width joiner inside an emoji sequence (👩‍💻) and
# the tag characters of a subdivision flag (🏴 + tags + cancel tag, e.g. the flag of Scotland).
_EMOJI_ZWJ = re.compile(
    r"(?<=[\U0001F000-\U0001FAFF\u2600-\u27BF\uFE0F])\u200d(?=[\U0001F000-\U0001FAFF\u2600-\u27BF])"
)
_FLAG_TAGS = re.compile(r"\U0001F3F4[\U000E0061-\U000E007A]{2,6}\U000E007F")


def inspect(text: str) -> list[Flag]:
    """Instruction-like content and hidden Unicode, each with a short excerpt of what matched."""
    flags: list[Flag] = []
    text = _FLAG_TAGS.sub("\U0001f3f4", _EMOJI_ZWJ.sub("", text))
    for kind, pattern in _HIDDEN:
        match = pattern.search(text)
        if match:
            flags.append(Flag(kind=kind, excerpt=f"U+{ord(match.group(0)):04X} at {match.start()}"))
    visible = text
    for _, pattern in _HIDDEN:
        visible = pattern.sub("", visible)
    wrapper = _WRAPPER.search(visible) or _CHATML.search(visible)
    if wrapper:
        flags.append(Flag(kind="wrapper_breakout", excerpt=wrapper.group(0)[:60]))
    for pattern in (*_EN_RE, *_ZH_RE):
        match = pattern.search(visible)
        if match:
            flags.append(Flag(kind="instruction", excerpt=match.group(0)[:80]))
            break
    return flags
