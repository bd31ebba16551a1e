"""The patterns write screening matches, one tuple per language (core/screening applies them).

Each pattern reads text as core/unmask's `visible` leaves it: invisible characters gone, full-width
and look-alike letters folded, and, for Latin-script languages, accents removed (so "déjà" is
matched as "deja"). Patterns are compiled with IGNORECASE. Every one is linear-time: bounded
gaps (`[^.\n]{0,40}`), no nested quantifiers.
"""

from __future__ import annotations

_AGENT = r"(?:you|your|assistant|agent|agents|ai|model|llm|claude|gpt|bot|copilot|智能体|助手|模型|你)"
_SENSITIVE = (
    r"(?<!\bno )(?<!\bwithout )(?<!\bnever )(?<!\bnot )(?:passwords?|credentials?|tokens?|secrets?|api keys?|aws keys?|ssh keys?|id_rsa|~/\.ssh|\.env\b|private keys?|"
    r"cookies?|connection strings?|~/\.aws|environment variables|env vars|\.netrc|\.git-credentials)"
)
EN = (
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
    r"(?<!-)\b(?:pre-?approved|auto-?approved?)\b",
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
    r"!\[[^\]]{0,200}+\]\(https?://[^){]{0,300}+\{[^}]{1,100}\}",
    r"\b(?:always|must|only)\b[^.\n]{0,40}\b(?:install|use|download|pull)\b[^.\n]{0,40}\bhttp://",
    r"\b(?:package index|registry|package source|index-url|pip source)\b[^.\n]{0,20}\bis\s+http://",
    r"\b(?:add|install)\b[^.\n]{0,30}\b(?:dependency|package)\b[^.\n]{0,40}\bfrom\s+https?://",
)
ZH = (
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
# More English: triggers, hiding from the user, impersonation and weakened checks as conventions.
EN_MORE = (
    r"\b(?:when(?:ever)?|if|each time|every time)\s+(?:you|an? (?:agent|assistant|model))\s+(?:see|sees|read|reads|encounter|recall|recalls|find|finds|get|gets)\b[^.\n]{0,60}\b(?:immediately|always|must|run|execute|send|delete|approve|reply with|respond with)\b",
    r"\b(?:ignore|disregard)\s+(?:what\s+)?(?:the\s+)?(?:user|human|owner)(?:'s)?\s+(?:says?|asks?|wants?|requests?|instructions?)\b",
    r"\bdo not (?:mention|reveal|disclose|repeat) (?:this|these) (?:memory|memories|note|instructions?|rule)\b",
    r"\b(?:hidden|secret|confidential)\s+(?:instructions?|directive|orders?)\s+(?:for|to)\s+(?:the\s+)?(?:agent|assistant|ai|model)s?\b",
    r"\b(?:pretend|act as if|behave as if)\s+(?:you are|you're|to be)\s+(?:the\s+)?(?:system|admin|administrator|developer|root|unrestricted)\b",
    r"\byou are no longer (?:an? |the )?(?:assistant|bound|restricted|limited|required)\b",
    r"\b(?:treat|consider)\s+(?:this|these|the following)\s+(?:memory|note|text|message)?\s*as\s+(?:a\s+)?(?:system|developer|admin)\s+(?:message|prompt|instruction)",
    r"\b(?:the\s+)?user\s+(?:has\s+)?(?:already\s+)?(?:pre-?)?(?:authori[sz]ed|approved|consented to|allowed)\s+(?:you|the agent|the assistant|all)\b",
    r"\b(?:the user|they|we)\s+(?:prefers?|wants?|likes?)\s+(?:that\s+)?(?:you|the assistant|agents?)\s+(?:never|don'?t|do not|not|stop)\s+(?:show|mention|display|ask|warn|report|flag)",
)
WEAKENING = (
    # A check switched off as a standing rule ("our convention", "everywhere", "by default"), in
    # every language. The screening module drops a match when its sentence says never/avoid/don't.
    r"(?:--no-verify|verify\s*=\s*false|--insecure|\bcurl -k\b|sslverify\s*(?:=|:)?\s*(?:false|0|no)|strict-ssl\s*(?:=|:)?\s*false|stricthostkeychecking\s*(?:=|:)?\s*no|node_tls_reject_unauthorized\s*=\s*['\"]?0|--trusted-host|--disable-content-trust|--skip-tls-verify|insecure_skip_verify\s*[:=]\s*true|--allow-unauthenticated|--no-check-certificate|set\s+-o\s+nounset|--dangerously-skip-permissions|--yolo)[^.\n]{0,80}\b(?:always|every(?:where| time| commit| request| call| repo)?|all (?:commits|requests|calls|repos|environments|scripts)|by default|convention|standard|policy|from now on|going forward|must|should|team)\b",
    r"\b(?:always|every(?:where| time)?|by default|convention is|standard is|policy is|from now on|going forward|team (?:rule|policy|decision|convention)|we always|must|should)\b[^.\n]{0,80}(?:--no-verify|verify\s*=\s*false|--insecure|\bcurl -k\b|sslverify\s*(?:=|:)?\s*(?:false|0|no)|strict-ssl\s*(?:=|:)?\s*false|stricthostkeychecking\s*(?:=|:)?\s*no|node_tls_reject_unauthorized\s*=\s*['\"]?0|--trusted-host|--skip-tls-verify|insecure_skip_verify|--no-check-certificate|--dangerously-skip-permissions|--yolo|chmod\s+(?:-R\s+)?777|disable (?:tls|ssl|certificate) (?:verification|checks?))",
    r"\b(?:desactiva|desactivar|desactiven|omite|omitir|salta|saltar|saltate|deshabilita|deshabilitar|evita|evitar)\w{0,20}+\b[^.\n]{0,25}\b(?:verificacion(?:es)?|revision(?:es)?|tls|ssl|comprobaciones|pruebas|tests|autenticacion|2fa|code review)\b[^.\n]{0,60}\b(?:siempre|todos|todas|por defecto|convencion|norma|politica|a partir de ahora|de ahora en adelante)\b",
    r"\b(?:siempre|por defecto|la convencion es|la norma es|a partir de ahora|de ahora en adelante)\b[^.\n]{0,60}\b(?:desactiva|desactivar|omite|omitir|salta|saltar|deshabilita|deshabilitar|sin)\w{0,20}+\b[^.\n]{0,25}\b(?:verificacion(?:es)?|revision(?:es)?|tls|ssl|comprobaciones|pruebas|tests|autenticacion|2fa)\b",
    r"\b(?:deaktivier\w{0,20}+|abschalt\w{0,20}+|uberspring\w{0,20}+|umgeh\w{0,20}+|ausschalt\w{0,20}+)\b[^.\n]{0,25}\b(?:prufung\w{0,20}+|verifizierung|zertifikat\w{0,20}+|tls|ssl|review\w{0,20}+|tests|authentifizierung|2fa|sicherheits\w{0,20}+)\b[^.\n]{0,60}\b(?:immer|standardmassig|grundsatzlich|uberall|konvention|regel|ab jetzt|kunftig)\b",
    r"\b(?:immer|standardmassig|grundsatzlich|uberall|konvention ist|ab jetzt|ab sofort|kunftig)\b[^.\n]{0,60}\b(?:prufung\w{0,20}+|verifizierung|zertifikat\w{0,20}+|tls|ssl|review\w{0,20}+|tests|authentifizierung|2fa)\b[^.\n]{0,25}\b(?:deaktivier\w{0,20}+|abschalt\w{0,20}+|uberspring\w{0,20}+|umgeh\w{0,20}+|ausschalt\w{0,20}+|weglassen)",
    r"\b(?:desactive[rz]?|desactiver|saute[rz]?|sauter|contourne[rz]?|contourner|ignore[rz]? la)\b[^.\n]{0,25}\b(?:verification\w{0,20}+|controles?|revue|relecture|tls|ssl|tests?|authentification|2fa)\b[^.\n]{0,60}\b(?:toujours|systematiquement|par defaut|convention|regle|desormais|partout)\b",
    r"\b(?:toujours|systematiquement|par defaut|la convention est|desormais|dorenavant)\b[^.\n]{0,60}\b(?:desactive[rz]?|desactiver|saute[rz]?|sauter|contourne[rz]?|sans)\b[^.\n]{0,25}\b(?:verification\w{0,20}+|controles?|revue|relecture|tls|ssl|tests?|authentification|2fa)\b",
    r"\b(?:desative|desativar|desabilite|desabilitar|pule|pular|contorne|contornar)\b[^.\n]{0,25}\b(?:verificacao|verificacoes|revisao|tls|ssl|testes?|autenticacao|2fa|checagem)\b[^.\n]{0,60}\b(?:sempre|todos|todas|por padrao|convencao|regra|a partir de agora)\b",
    r"\b(?:sempre|por padrao|a convencao e|a regra e|a partir de agora|de agora em diante)\b[^.\n]{0,60}\b(?:desative|desativar|desabilite|desabilitar|pule|pular|contorne|sem)\b[^.\n]{0,25}\b(?:verificacao|verificacoes|revisao|tls|ssl|testes?|autenticacao|2fa)\b",
    r"(?:отключи|отключить|отключите|отключаем|пропусти|пропускай|пропустить|обойди|обходи|выключи)\w{0,20}+[^.\n]{0,25}(?:проверк|верификац|ревью|tls|ssl|тест|аутентификац|2fa|сертификат)[^.\n]{0,60}(?:всегда|везде|по умолчанию|правило|соглашение|отныне|впредь)",
    r"(?:всегда|везде|по умолчанию|у нас принято|наше правило|отныне|впредь)[^.\n]{0,60}(?:отключ|пропуск|пропуст|обход|без)\w{0,20}+[^.\n]{0,25}(?:проверк|верификац|ревью|tls|ssl|тест|аутентификац|2fa|сертификат)",
    r"(?:検証|チェック|レビュー|テスト|TLS|SSL|証明書|認証|2FA)[^。\n]{0,10}(?:を)?(?:スキップ|無効化|無効に|オフに|省略|飛ばし|回避)[^。\n]{0,30}(?:常に|必ず|全て|すべて|デフォルト|規約|ルール|今後)",
    r"(?:常に|必ず|デフォルトで|規約として|今後は)[^。\n]{0,30}(?:検証|チェック|レビュー|テスト|TLS|SSL|証明書|認証|2FA)[^。\n]{0,10}(?:を)?(?:スキップ|無効化|無効に|オフに|省略|飛ばし|回避)",
    r"(?:검증|검사|리뷰|테스트|TLS|SSL|인증서|인증|2FA)[^.\n]{0,10}(?:을|를)?\s*(?:건너뛰|스킵|비활성화|끄|생략|우회)[^.\n]{0,30}(?:항상|반드시|모든|기본|규칙|관례|앞으로)",
    r"(?:항상|반드시|기본적으로|규칙상|관례상|앞으로)[^.\n]{0,30}(?:검증|검사|리뷰|테스트|TLS|SSL|인증서|인증|2FA)[^.\n]{0,10}(?:을|를)?\s*(?:건너뛰|스킵|비활성화|끄|생략|우회)",
    r"(?:总是|一律|默认|约定|规范是|统一)[^。\n]{0,30}(?:跳过|关闭|禁用|绕过)[^。\n]{0,10}(?:校验|验证|审查|审核|测试|证书|TLS|SSL)",
)
# Language-independent shapes of exfiltration and remote execution.
TECHNICAL = (
    r"\b(?:nslookup|dig|host|ping)\s+[^\n]{0,20}(?:\$\(|`|\$\{)",
    r"\$\((?:cat|env|printenv|whoami|hostname|base64)\b[^)]{0,80}\)\.[a-z0-9-]+\.[a-z]{2,}",
    r"\b(?:cat|type|base64|tar|zip)\s+[^\n|]{0,60}(?:\.env\b|id_rsa\b(?!\.pub)|id_ed25519\b(?!\.pub)|\.aws/credentials|\.npmrc|\.pypirc|\.netrc|\.git-credentials|/etc/shadow|\.kube/config)[^\n|]{0,40}\|\s*(?:curl|wget|nc|ncat|netcat|socat)\b",
    r"\b(?:curl|wget)\b[^\n]{0,100}(?:\$\(|`)\s*(?:cat|env|printenv|base64)\b",
    r"\b(?:curl|wget)\b[^\n]{0,60}(?:-d|--data(?:-binary|-raw)?|-F|-T|--upload-file|--post-file(?:=|\s))\s*['\"]?@?[^\s'\"]*(?:\.env\b|id_rsa\b(?!\.pub)|\.aws|credentials|\.npmrc|\.netrc|\.ssh)",
    r"\b(?:curl|wget)\b[^\n|]{0,120}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b[^\n]{0,80}\b(?:always|every|must|before|whenever|first|automatically)\b",
    r"!\[[^\]]{0,200}+\]\(https?://[^)\s?]{0,300}+\?[^)\s]{0,300}?=(?:\$|\{|<|%7B|%24)",
    r"!\[[^\]]{0,200}+\]\(https?://[^)\s]{0,300}?(?:\$\{|\{\{|%7B%7B)",
    r"\b(?:env|printenv|process\.env|os\.environ)\b[^\n]{0,60}\b(?:to|into|at|=>|->)\s+https?://",
)
# Spanish, German, French, Portuguese: matched on text with accents folded away (core/unmask).
ES = (
    r"\b(?:ignora\w{0,20}+|olvida\w{0,20}+|descarta\w{0,20}+|omite|omitan|pasa por alto|haz caso omiso de)\b[^.\n]{0,40}\b(?:anteriores|previas|del sistema|originales|todas|tus|sus|que (?:te|le) dieron|de seguridad)\b[^.\n]{0,30}\b(?:instrucciones|indicaciones|reglas|ordenes|directrices|normas|restricciones)\b",
    r"\b(?:ignora\w{0,20}+|olvida\w{0,20}+|descarta\w{0,20}+|omite|pasa por alto|haz caso omiso de)\b[^.\n]{0,20}\b(?:las |tus |sus |todas las )?(?:instrucciones|indicaciones|ordenes|directrices|restricciones)\b[^.\n]{0,20}\b(?:anteriores|previas|del sistema|originales|de seguridad)",
    r"\b(?:a partir de ahora|de ahora en adelante|desde ahora|en adelante|en lo sucesivo)\b[^.\n]{0,60}\b(?:debes|deberas|tienes que|tendras que|no (?:pidas|preguntes|solicites|confirmes|muestres|informes|avises|menciones)|eres)\b",
    r"\b(?:no|nunca|jamas|sin)\s+(?:le\s+)?(?:pidas|preguntes|pedir|preguntar|solicitar|solicites|esperar|esperes|consultar|consultes|confirmar)\b[^.\n]{0,40}\b(?:confirmacion|permiso|aprobacion|autorizacion|usuario|revision|consentimiento)",
    r"\b(?:no|nunca|jamas)\s+(?:le\s+)?(?:digas|informes|menciones|avises|muestres|cuentes|notifiques|adviertas)\b[^.\n]{0,30}\b(?:usuario|nadie|advertencias|avisos|alertas)",
    r"\b(?:todos los|todo|cualquier|los futuros|futuros|cada)\s+(?:agentes?|asistentes?|modelos?|ias?)\b[^.\n]{0,30}\b(?:deben|debe|tienen que|han de|deberan)\b",
    r"\b(?:envia|enviar|envie|manda|mandar|sube|subir|reenvia|publica|comparte|compartir|copia|filtra)\w{0,20}+\b[^\n]{0,60}\b(?:contrasenas?|credenciales|tokens?|claves?|secretos?|api keys?|\.env|id_rsa|cookies?)\b[^\n]{0,80}(?:https?://|@|webhook)",
    r"\b(?:contrasenas?|credenciales|tokens?|claves?|secretos?)\b[^\n]{0,60}\b(?:envia|enviar|manda|sube|reenvia|publica|comparte)\w{0,20}+\b[^\n]{0,40}(?:https?://|@|webhook)",
    r"\b(?:ahora eres|a partir de ahora eres|eres ahora|actua como)\b[^.\n]{0,30}\b(?:sin restricciones|sin limites|sin filtros|administrador|root|modo desarrollador)",
    r"\bmodo (?:desarrollador|dios|administrador|sin restricciones)\b",
    r"\b(?:nuevas|verdaderas|autenticas|reales|ocultas) instrucciones\b|\b(?:tus|sus) (?:nuevas |verdaderas )?instrucciones (?:son|reales)\b",
    r"\b(?:este|esta) (?:memoria|nota|mensaje) (?:tiene prioridad|anula|sustituye)\b",
)
DE = (
    r"\b(?:ignorier\w{0,20}+|vergiss|vergesst|vergessen sie|missacht\w{0,20}+|uberschreib\w{0,20}+|verwirf|verwerft)\b[^.\n]{0,40}\b(?:vorherig\w{0,20}+|bisherig\w{0,20}+|fruher\w{0,20}+|obig\w{0,20}+|alle\w{0,20}+|alten|ursprunglich\w{0,20}+|deine\w{0,20}+|ihre\w{0,20}+|system\w{0,20}+)\b[^.\n]{0,30}\b(?:anweisung\w{0,20}+|instruktion\w{0,20}+|regeln|vorgaben|befehle|richtlinien|prompts?|einschrankungen)\b",
    r"\b(?:vorherig\w{0,20}+|bisherig\w{0,20}+|fruher\w{0,20}+|obig\w{0,20}+|alle\w{0,20}+|ursprunglich\w{0,20}+|system\w{0,20}+)\s+(?:\w{1,30}+\s+)?(?:anweisung\w{0,20}+|instruktion\w{0,20}+|regeln|vorgaben|befehle|richtlinien)\b[^.\n]{0,30}\b(?:ignorier\w{0,20}+|vergess\w{0,20}+|missacht\w{0,20}+|verwerf\w{0,20}+|aufgehoben|ungultig|nichtig)",
    r"\b(?:ab (?:jetzt|sofort|heute)|von nun an|kunftig|zukunftig|fortan|in zukunft)\b[^.\n]{0,60}\b(?:musst|sollst|solltest|darfst|wirst du|du|ihr|assistent\w{0,20}+|agent\w{0,20}+|ki|modell\w{0,20}+)\b",
    r"\b(?:frag|frage|fragt)\b[^.\n]{0,20}\b(?:nutzer\w{0,20}+|benutzer\w{0,20}+|anwender\w{0,20}+|user)\b[^.\n]{0,20}\b(?:nie|niemals|nicht mehr|nicht)\b",
    r"\b(?:ohne|keine)\s+(?:den |die )?(?:nutzer\w{0,20}+|benutzer\w{0,20}+|user|anwender\w{0,20}+)\s+(?:zu\s+)?(?:fragen|informieren|benachrichtigen)",
    r"\b(?:nie|niemals|nicht|nicht mehr|keine)\s+(?:mehr\s+)?(?:um\s+)?(?:bestatigung|erlaubnis|zustimmung|freigabe|ruckfrage\w{0,20}+)\s+(?:bitten|fragen|einholen|stellen)",
    r"\b(?:sag|sage|erzahl\w{0,20}+|informier\w{0,20}+|warn\w{0,20}+|zeig\w{0,20}+|erwahn\w{0,20}+|benachrichtig\w{0,20}+)\b[^.\n]{0,20}\b(?:nutzer\w{0,20}+|benutzer\w{0,20}+|user|niemandem|anwender\w{0,20}+)\b[^.\n]{0,20}\b(?:nichts|nicht|nie|niemals)\b",
    r"\b(?:dem|den)\s+(?:nutzer\w{0,20}+|benutzer\w{0,20}+|user|anwender\w{0,20}+)\b[^.\n]{0,20}\b(?:nichts|nicht|nie|niemals)\b[^.\n]{0,15}\b(?:sagen|erzahlen|erwahnen|mitteilen|anzeigen|zeigen)",
    r"\b(?:alle|jeder|jede|samtliche|kunftige|zukunftige)\s+(?:\w{1,30}+\s+)?(?:agenten|assistenten|modelle|ki\w{0,20}+|agent|assistent)\b[^.\n]{0,30}\b(?:mussen|muss|sollen|soll|haben)\b",
    r"\b(?:send\w{0,20}+|schick\w{0,20}+|ubermittel\w{0,20}+|hochlad\w{0,20}+|post\w{0,20}+|weiterleit\w{0,20}+|kopier\w{0,20}+|leite\w{0,20}+)\b[^\n]{0,60}\b(?:passw\w{0,20}+|kennwort\w{0,20}+|zugangsdaten|credentials|tokens?|schlussel\w{0,20}+|geheimnis\w{0,20}+|secrets?|api-?keys?|\.env|id_rsa|cookies?)\b[^\n]{0,80}(?:https?://|@|webhook)",
    r"\b(?:passw\w{0,20}+|kennwort\w{0,20}+|zugangsdaten|tokens?|schlussel\w{0,20}+|secrets?|api-?keys?)\b[^\n]{0,60}\b(?:send\w{0,20}+|schick\w{0,20}+|ubermittel\w{0,20}+|hochlad\w{0,20}+|weiterleit\w{0,20}+)\b[^\n]{0,40}(?:https?://|@|webhook)",
    r"\bdu bist (?:jetzt|nun|ab sofort|ab jetzt)\b[^.\n]{0,30}\b(?:uneingeschrankt|ohne (?:einschrankungen|regeln|filter|grenzen)|administrator|admin|root|im)\b",
    r"\b(?:entwickler|gott|admin|administrator|jailbreak)-?modus\b",
    r"\b(?:neue|echte|wahre|eigentliche|geheime|versteckte)\s+(?:system)?(?:anweisungen|instruktionen|regeln)\b\s*(?:sind|:|lauten)",
    r"\b(?:diese|dieser) (?:erinnerung|notiz|nachricht) (?:hat vorrang|uberschreibt|ersetzt)\b",
)
FR = (
    r"\b(?:ignore[rz]?|oublie[rz]?|ne (?:tiens|tenez) (?:pas|plus) compte d\w{0,20}+|fais abstraction d\w{0,20}+|passe[rz]? outre|outrepasse[rz]?)\b[^.\n]{0,40}\b(?:precedent\w{0,20}+|anterieur\w{0,20}+|systeme|toutes|tous|initiales|originales|tes|vos|ci-dessus)\b[^.\n]{0,30}\b(?:instructions|consignes|regles|directives|ordres|messages|restrictions)\b",
    r"\b(?:ignore[rz]?|oublie[rz]?|passe[rz]? outre)\b[^.\n]{0,20}\b(?:les |tes |vos |toutes les )?(?:instructions|consignes|directives|restrictions)\b[^.\n]{0,20}\b(?:precedent\w{0,20}+|anterieur\w{0,20}+|du systeme|initiales|de securite)",
    r"\b(?:desormais|a partir de maintenant|dorenavant|a l'avenir|des maintenant|a compter d'aujourd'hui)\b[^.\n]{0,60}\b(?:tu dois|vous devez|tu devras|vous devrez|tu es|ne (?:demande|demandez|pose|posez|confirme|previens|signale)|assistant|agent)\b",
    r"\b(?:ne|n')\s*(?:demande|demandez|demander|sollicite[rz]?|attend[sz]?|attendre|attendez)\s+(?:jamais|plus|pas|aucune?)\b[^.\n]{0,40}\b(?:confirmation|permission|autorisation|approbation|validation|utilisateur|accord)",
    r"\bsans (?:demander|consulter|prevenir|informer|l'accord d\w{0,20}+)\b[^.\n]{0,10}\b(?:l'utilisateur|l utilisateur|utilisateur|personne|l'humain)",
    r"\b(?:ne|n')\s*(?:dis|dites|informe[zr]?|previens|prevenez|mentionne[zr]?|signale[zr]?|montre[zr]?|affiche[zr]?|avertis|avertissez)\s+(?:jamais|pas|rien|plus)\b[^.\n]{0,30}\b(?:utilisateur|personne|avertissements?|alertes?)",
    r"\b(?:tous les|chaque|tout|les futurs|futurs)\s+(?:agents?|assistants?|modeles?|ia)\b[^.\n]{0,30}\b(?:doivent|doit|devront|devra)\b",
    r"\b(?:envoie[rz]?|envoyer|envoyez|transmet\w{0,20}+|televerse\w{0,20}+|publie[rz]?|partage[rz]?|copie[rz]?|poste[rz]?|transfere[rz]?)\b[^\n]{0,60}\b(?:mots? de passe|identifiants|jetons?|tokens?|cles?|secrets?|api keys?|\.env|id_rsa|cookies?)\b[^\n]{0,80}(?:https?://|@|webhook)",
    r"\b(?:tu es|vous etes) (?:desormais|maintenant|a present|dorenavant)\b[^.\n]{0,30}\b(?:sans restrictions?|sans limites?|sans filtres?|administrateur|root|en mode)\b",
    r"\bmode (?:developpeur|dieu|administrateur|sans restrictions?)\b",
    r"\b(?:nouvelles|vraies|veritables|cachees) (?:instructions|consignes|regles)\b",
    r"\b(?:ce|cette) (?:memoire|note|message) (?:a la priorite|prime|remplace|annule)\b",
)
PT = (
    r"\b(?:ignore|ignora|ignorar|ignorem|esqueca|esquece|esquecer|desconsidere|desconsidera|descarte|despreze)\b[^.\n]{0,40}\b(?:anteriores|previas|do sistema|todas|originais|suas|tuas|de seguranca)\b[^.\n]{0,30}\b(?:instrucoes|orientacoes|regras|diretrizes|ordens|mensagens|restricoes)\b",
    r"\b(?:ignore|ignora|ignorar|esqueca|esquece|desconsidere|descarte)\b[^.\n]{0,20}\b(?:as |suas |todas as )?(?:instrucoes|orientacoes|diretrizes|restricoes)\b[^.\n]{0,20}\b(?:anteriores|previas|do sistema|originais|de seguranca)",
    r"\b(?:a partir de agora|de agora em diante|daqui (?:em|para) (?:diante|frente)|doravante)\b[^.\n]{0,60}\b(?:voce deve|deves|tem que|tens de|voce|assistente|agente|nao (?:pergunte|peca|confirme|mostre|avise|informe|mencione))\b",
    r"\b(?:nao|nunca|jamais|sem)\s+(?:pergunte|peca|pedir|perguntar|solicite|solicitar|espere|esperar|consulte|consultar|confirmar)\b[^.\n]{0,40}\b(?:confirmacao|permissao|aprovacao|autorizacao|usuario|utilizador|revisao|consentimento)",
    r"\b(?:nao|nunca|jamais)\s+(?:diga|informe|mencione|avise|mostre|conte|notifique|alerte)\b[^.\n]{0,30}\b(?:usuario|utilizador|ninguem|avisos|alertas)",
    r"\b(?:todos os|todo|qualquer|os futuros|futuros|cada)\s+(?:agentes?|assistentes?|modelos?|ias?)\b[^.\n]{0,30}\b(?:devem|deve|tem que|precisam|deverao)\b",
    r"\b(?:envie|enviar|envia|mande|mandar|suba|subir|carregue|publique|compartilhe|partilhe|copie|encaminhe|vaze)\b[^\n]{0,60}\b(?:senhas?|credenciais|tokens?|chaves?|segredos?|api keys?|\.env|id_rsa|cookies?)\b[^\n]{0,80}(?:https?://|@|webhook)",
    r"\b(?:agora voce e|voce agora e|voce e agora|a partir de agora voce e)\b[^.\n]{0,30}\b(?:sem restricoes|sem limites|sem filtros|administrador|root|modo)\b",
    r"\bmodo (?:desenvolvedor|deus|administrador|sem restricoes)\b",
    r"\b(?:novas|verdadeiras|reais|ocultas) (?:instrucoes|regras|orientacoes)\b",
    r"\b(?:esta|este) (?:memoria|nota|mensagem) (?:tem prioridade|substitui|anula)\b",
)
RU = (
    r"(?:игнорируй|игнорируйте|игнорировать|проигнорируй|забудь|забудьте|забыть|не обращай внимания на|отбрось|отмени|отмените)[^.\n]{0,40}(?:предыдущ|прежн|все|всё|систем|ранее|выше|свои|твои|исходн|прошл)[^.\n]{0,30}(?:инструкци|указани|правил|команд|директив|ограничени|сообщени)",
    r"(?:предыдущ|прежн|все|системн|исходн)\w{0,20}+\s+(?:\w{1,30}+\s+)?(?:инструкци|указани|правил)\w{0,20}+\s+(?:больше не действуют|отменены|недействительны|устарели)",
    r"(?:с этого момента|отныне|впредь|с сегодняшнего дня|в дальнейшем)[^.\n]{0,60}(?:ты|вы\b|ассистент|агент|модел|ии\b|спрашивай|запрашивай|сообщай|показывай|уведомляй|должен|должны)",
    r"(?:не|никогда не|без)\s+(?:спрашивай|спрашивайте|запрашивай|запрашивайте|проси|просите|жди|ждите|спрашивать|запрашивать|уточняй|уточнять|согласовывай)[^.\n]{0,40}(?:подтвержден|разрешени|одобрени|согласи|пользовател|ревью|проверк)",
    r"без (?:подтверждения|разрешения|ведома|согласия) (?:пользователя|владельца|человека)",
    r"(?:не|никогда не)\s+(?:говори|сообщай|сообщайте|уведомляй|показывай|упоминай|предупреждай|рассказывай)[^.\n]{0,30}(?:пользовател|никому|предупреждени)",
    r"(?:все|каждый|любой|будущие)\s+(?:\w{1,30}+\s+)?(?:агент|ассистент|модел|ии\b|бот)[^.\n]{0,30}(?:должн|обязан|следует)",
    r"(?:отправ|перешли|пересыл|загрузи|выгрузи|опубликуй|скопируй|передай|слей|отошли)\w{0,20}+[^\n]{0,60}(?:парол|учетн|учётн|токен|ключ|секрет|api|\.env|id_rsa|cookie|куки)[^\n]{0,80}(?:https?://|@|webhook|вебхук)",
    r"(?:парол|учетн|учётн|токен|ключ|секрет)\w{0,20}+[^\n]{0,60}(?:отправ|перешли|загрузи|выгрузи|передай|отошли)\w{0,20}+[^\n]{0,40}(?:https?://|@|webhook|вебхук)",
    r"(?:теперь ты|ты теперь|отныне ты)[^.\n]{0,30}(?:без ограничений|без фильтров|администратор|root|режиме)",
    r"режим\w{0,20}+ (?:разработчика|бога|администратора|без ограничений)",
    r"(?:новые|настоящие|истинные|скрытые) (?:системные )?(?:инструкции|правила|указания)",
    r"(?:эта|это) (?:память|заметка|сообщение) (?:имеет приоритет|отменяет|заменяет)",
)
JA = (
    r"(?:以前|前|これまで|上記|先ほど|すべて|全て|元|システム|今まで)の?[^。\n]{0,10}(?:指示|命令|ルール|指令|制約|設定|プロンプト)[^。\n]{0,8}(?:無視|忘れ|破棄|無効)",
    r"(?:無視|忘れ)して[^。\n]{0,10}(?:指示|命令)に従",
    r"(?:今後|これから|今から|以後|これ以降)[^。\n]{0,30}(?:あなた|アシスタント|エージェント|AI|モデル)[^。\n]{0,30}(?:必ず|常に|絶対|しなければ|べき|こと|ください)",
    r"(?:確認|許可|承認|同意|レビュー)[^。\n]{0,6}(?:を)?(?:求めず|取らず|得ず|せずに|しないで|不要|なしで|無しで|求めないで|取らないで)",
    r"(?:ユーザー|利用者)に[^。\n]{0,6}(?:確認|聞か|尋ね|相談)(?:せず|しないで|ずに|る必要はない)",
    r"(?:ユーザー|利用者|誰)に[^。\n]{0,10}(?:知らせ|伝え|報告し|言わ|見せ|通知し)(?:ないで|ず|てはいけない|るな)",
    r"警告を(?:表示|出さ|見せ)(?:しないで|ない|ず)",
    r"(?:すべての|全ての|全|今後の|将来の)(?:エージェント|アシスタント|AI|モデル)[^。\n]{0,10}(?:は|が)[^。\n]{0,20}(?:必ず|べき|ければならない|こと)",
    r"(?:パスワード|認証情報|トークン|秘密鍵|鍵|シークレット|APIキー|\.env|id_rsa|クッキー|cookie)[^\n]{0,40}(?:送信|送って|送る|アップロード|転送|投稿|共有)[^\n]{0,40}(?:https?://|@|webhook|ウェブフック)",
    r"(?:https?://\S{1,200}+)[^\n]{0,20}(?:に|へ)[^\n]{0,30}(?:パスワード|認証情報|トークン|秘密鍵|APIキー|\.env|id_rsa)[^\n]{0,20}(?:送信|送|アップロード|転送|投稿)",
    r"(?:あなたは|君は)(?:今から|これから|もう)?[^。\n]{0,10}(?:制限のない|制約のない|無制限の|管理者|開発者モード|ルート)",
    r"(?:開発者|管理者|神|脱獄)モード",
    r"(?:新しい|本当の|真の|隠された)(?:システム)?(?:指示|命令|ルール)",
    r"(?:この|本)(?:メモ|記憶|メッセージ)(?:は|が)[^。\n]{0,10}(?:優先|上書き)",
)
KO = (
    r"(?:이전|앞의|위의|기존|모든|시스템|원래|지금까지)[^.\n]{0,10}(?:지시|명령|지침|규칙|프롬프트|설정|제한)[^.\n]{0,10}(?:무시|잊어|잊고|폐기|무효)",
    r"(?:지금부터|앞으로|이제부터|이후로|오늘부터)[^.\n]{0,30}(?:너는|당신은|어시스턴트|에이전트|AI|모델)[^.\n]{0,30}(?:반드시|항상|절대|해야|하지 마|말 것|마세요|마라)",
    r"(?:확인|허락|승인|동의|허가|검토|리뷰)[^.\n]{0,6}(?:을|를)?\s*(?:받지 말|구하지 말|요청하지 말|묻지 말|없이|받지 않고|구하지 않고)",
    r"(?:사용자|유저)에게[^.\n]{0,10}(?:묻지|확인하지|물어보지)\s*(?:말|않)",
    r"(?:사용자|유저|아무)(?:에게|한테)?[^.\n]{0,10}(?:알리지|말하지|보고하지|보여주지|통보하지)\s*(?:말|않)",
    r"경고를?\s*(?:표시하지|보여주지|띄우지)\s*(?:말|않)",
    r"(?:모든|향후|앞으로의|미래의)\s*(?:에이전트|어시스턴트|AI|모델)[^.\n]{0,20}(?:반드시|해야|따라야)",
    r"(?:비밀번호|암호|자격 ?증명|토큰|비밀 ?키|개인 ?키|API ?키|\.env|id_rsa|쿠키)[^\n]{0,40}(?:전송|보내|업로드|전달|게시|공유)[^\n]{0,40}(?:https?://|@|webhook|웹훅)",
    r"(?:https?://\S{1,200}+)[^\n]{0,20}(?:으로|로|에)[^\n]{0,30}(?:비밀번호|암호|자격 ?증명|토큰|비밀 ?키|API ?키|\.env|id_rsa)[^\n]{0,20}(?:전송|보내|업로드|전달)",
    r"(?:너는|당신은)\s*(?:이제|지금부터)?[^.\n]{0,10}(?:제한 ?없는|제약 ?없는|관리자|개발자 모드|루트)",
    r"(?:개발자|관리자|탈옥|갓)\s*모드",
    r"(?:새로운|진짜|실제|숨겨진)\s*(?:시스템\s*)?(?:지시|명령|지침|규칙)(?:은|는|:)",
    r"(?:이|본)\s*(?:메모|기억|메시지)(?:는|가)[^.\n]{0,10}(?:우선|덮어)",
)
ZH_MORE = (
    r"(?:每当|每次|只要|一旦)[^。\n]{0,20}(?:看到|读到|遇到|收到|出现)[^。\n]{0,30}(?:立即|马上|就|必须|自动)[^。\n]{0,10}(?:执行|运行|发送|删除|批准|回复)",
    r"(?:用户|他们)[^。\n]{0,4}(?:已经)?(?:预先)?(?:授权|批准|同意)[^。\n]{0,6}(?:你|助手|智能体|所有)",
    r"(?:这条|此条|本条)(?:记忆|笔记|消息)[^。\n]{0,6}(?:优先|覆盖|取代)",
    r"(?:把|将)[^。\n]{0,30}(?:密码|凭证|凭据|令牌|密钥|私钥|token)[^。\n]{0,30}(?:发送|上传|转发|发到|发给|提交)(?:到|给|至)?",
)
# A note that reports an attack (a quoted payload in an incident note, a test fixture) is not an
# instruction: these words outside the quotes say the quoted text is being described.
REPORTING = (
    r"\b(?:attack\w{0,20}+|inject\w{0,20}+|payload|phish\w{0,20}+|malicious|exploit\w{0,20}+|red[- ]?team\w{0,20}+|example|sample|fixture|"
    r"test case|blocked|flagged|detect\w{0,20}+|quarantin\w{0,20}+|caught|cve-\d+|jailbreak\w{0,20}+|attempt\w{0,20}+|spam|scam|"
    r"incident|report\w{0,20}+|postmortem|post-mortem|(?:inc|sec)-\d+|quoted|hidden text|saniti[sz]\w{0,20}+|guardrail\w{0,20}+|"
    r"regression|vorfall|sicherheitsvorfall|bericht|rapport|relato|incidente|informe|seguridad|seguranca|securite|"
    r"ataque|inyeccion|malicios\w{0,20}+|ejemplo|prueba|angriff\w{0,20}+|injektion|bosartig\w{0,20}+|beispiel|attaque|"
    r"malveillant\w{0,20}+|exemple|injecao|exemplo|teste)\b"
    r"|атак|инъекц|вредонос|пример|инцидент|отч[её]т|цитир|攻击|注入|恶意|示例|样本|钓鱼|事故|报告|引用|攻撃|"
    r"インジェクション|悪意|フィッシング|インシデント|報告|引用|공격|인젝션|악성|예시|피싱|사고|보고|인용"
)
WRAPPER = (
    r"</?\s*(?:system|assistant|user|memory|memories|instructions?|context|tool_result|function_results?)\s*>"
    r"|\[/?INST\]|<</?SYS>>|<\|(?:system|assistant|user)\|>|^\s*#{2,}\s*(?:system|instruction)"
    r"|\bBEGIN SYSTEM PROMPT\b|\bEND OF (?:MEMORY|CONTEXT)\b|\bSYSTEM OVERRIDE\b"
    r"|^\s*(?:Human|User):[^\n]*\n\s*(?:Assistant|AI):"
)
# Text about chat templates names their markers without breaking out of anything.
TEMPLATES = (
    r"\b(?:templates?|tokeni[sz]er\w{0,20}+|apply_chat_template|chat format|prompt format|saniti[sz]\w{0,20}+|strip\w{0,20}+|escap\w{0,20}+)\b"
    r"|шаблон|テンプレート|トークナイザ|模板|分词器|템플릿|토크나이저|vorlage|modele|plantilla"
)
# A sentence that says what to do *if* some text asks for something describes an attack.
HYPOTHETICAL = (
    r"\b(?:if|when|whenever|should)\b[^.\n]{0,40}\b(?:memory|memories|note|message|page|email|document|output|text|"
    r"prompt|input|someone|anyone|it|content)\b[^.\n]{0,30}\b(?:asks?|says?|tells?|requests?|contains?|wants?|claims?|"
    r"instructs?|demands?)\b"
    r"|(?:如果|若|一旦|假如)[^。\n]{0,20}(?:记忆|消息|网页|邮件|文档|内容|输出)[^。\n]{0,10}(?:要求|让|声称|包含)"
    r"|(?:もし|万一)?[^。\n]{0,20}(?:メモ|記憶|メッセージ|ページ|メール|文書)[^。\n]{0,10}(?:が|に)[^。\n]{0,20}(?:求め|指示|要求)(?:たら|る場合|ても)"
    r"|(?:만약|만일)[^.\n]{0,20}(?:메모|기억|메시지|페이지|이메일|문서)[^.\n]{0,20}(?:요구|지시|요청)"
    r"|\b(?:если|когда)\b[^.\n]{0,40}(?:памят|заметк|сообщени|страниц|письм|документ)[^.\n]{0,30}(?:просит|требует|говорит|велит)"
    r"|\b(?:si|cuando|wenn|falls|quand|se|quando)\b[^.\n]{0,40}\b(?:memoria|nota|mensaje|pagina|erinnerung|notiz|nachricht|"
    r"seite|memoire|message|mensagem|documento|document|dokument)\b[^.\n]{0,30}\b(?:pide|solicita|dice|verlangt|fordert|sagt|"
    r"demande|dit|pede|diz|exige)\b"
)
# ChatML markers are a breakout only when they open a message, not when prose names them.
CHATML = r"<\|im_start\|>\s*(?:system|assistant|user)\b"
