"""probcore's messages in the interface language: the stable id of each English message probcore can
send to the interface (its pattern), and the Chinese template of each id (``error.<id>``).
:func:`localize` is what explorer.i18n.t applies to a field named ``error`` or ``cause``."""
from __future__ import annotations

import re

from explorer.i18n.catalogue import catalogue, language, register

# ---- messages from probcore in the interface language (issue 14) ----
# probcore writes its ValueErrors and the Check page's diagnoses in English. Each message it can
# send to the interface has a stable id here and the pattern of its English text; a language gives
# the template ``error.<id>``, filled with the pattern's named fields. Fields named in NESTED hold a
# message themselves and are translated in turn. Unknown text is shown as it is.
MESSAGE_PATTERNS = {
    # probcore._validate and the registry
    "real": r"(?P<name>\w+) must be a real number, got (?P<value>.+)",
    "temperature": r"temperature must be finite and non-zero \(negative gives softmin\), got (?P<value>.+)",
    "open_positive": r"(?P<name>\w+) must be in \(0, inf\), got (?P<value>.+)",
    "nonnegative": r"(?P<name>\w+) must be in \[0, inf\), got (?P<value>.+)",
    "beta": r"beta must be finite, got (?P<value>.+)",
    "order": r"order must be an even integer >= 2, got (?P<value>.+)",
    "k": r"k must be an integer in \[1, (?P<n>\d+)\] \(n = \d+\), got (?P<value>.+)",
    "top_p": r"top_p must be in \(0, 1\], got (?P<value>.+)",
    "alpha": r"alpha must be a finite real > 0, got (?P<value>.+)",
    "one_of": r"(?P<name>\w+) must be one of (?P<choices>.+); got (?P<value>.+)",
    "integer_at_least": r"(?P<name>\w+) must be an integer >= (?P<low>-?\d+), got (?P<value>.+)",
    "temperature_or_beta": r"give either temperature or beta \(beta = 1 / temperature\), not both",
    "k_or_top_p": r"give exactly one of k \(an integer in \[1, n\]\) or top_p \(a real in \(0, 1\]\)",
    "bool": r"(?P<name>\w+) must be True or False, got (?P<value>.+)",
    "unknown_param": r"unknown parameter (?P<name>.+) for (?P<mapping>\w+); valid: (?P<valid>.+)",
    # explorer.compute
    "no_analytic_jacobian": r"no analytic Jacobian: autograd needs n backward passes, shown for n <= (?P<limit>\d+)",
    # probcore.check: reading numbers
    "not_finite": r"(?P<token>'[^']*') is not a finite number",
    "not_a_number": r"(?P<token>'[^']*') is not a number",
    "overflows": r"(?P<token>'[^']*') overflows float64 \(\|value\| > 1\.8e308\)",
    "value_at": r"(?P<name>'[^']*'|[\w .]+): value (?P<i>\d+) (?P<error>.+)",
    "line_column": r"(?P<name>'[^']*'|[\w .]+): line (?P<line>\d+), column (?P<col>\d+): (?P<error>.+)",
    "line_width": r"(?P<name>'[^']*'|[\w .]+): line (?P<line>\d+) has (?P<got>\d+) values, expected (?P<width>\d+) like the first line",
    "unit_width": r"(?P<name>'[^']*'|[\w .]+): (?P<unit>row|line) (?P<i>\d+) has (?P<got>\d+) values, expected (?P<width>\d+) like (?:row|line) 1",
    "empty": r"(?P<name>'[^']*'|[\w .]+) is empty: (?:enter|paste) numbers separated by commas.+",
    "max_cols": r"(?P<name>'[^']*'|[\w .]+) must have at most (?P<limit>[\d,]+) values per row, got (?P<got>[\d,]+)",
    "max_rows": r"(?P<name>'[^']*'|[\w .]+) must have at most (?P<limit>[\d,]+) rows, got (?P<got>[\d,]+)",
    "max_values": r"(?P<name>'[^']*'|[\w .]+) must hold at most (?P<limit>[\d,]+) values in all, got (?P<got>[\d,]+)",
    "max_chars": r"(?P<name>'[^']*'|[\w .]+) must be at most (?P<limit>[\d,]+) characters, got (?P<got>[\d,]+); upload a \.npy file",
    "no_rows": r"(?P<name>'[^']*'|[\w .]+) holds no rows of numbers",
    "not_utf8": r"(?P<name>'[^']*'|[\w .]+) is not UTF-8 text",
    "npy_pickle": r"(?P<name>'[^']*'|[\w .]+) is not a valid \.npy file \(pickled data is not accepted\): (?P<detail>.+)",
    "npy_invalid": r"(?P<name>'[^']*'|[\w .]+) is not a valid \.npy file: (?P<detail>.+)",
    "npy_dtype": r"(?P<name>'[^']*'|[\w .]+) must hold a real numeric array \(float or int\), got dtype (?P<dtype>.+)",
    "npy_shape": r"(?P<name>'[^']*'|[\w .]+) must be a non-empty 1-D \(n,\) or 2-D \(rows, n\) array, got shape (?P<shape>.+)",
    "npy_nonfinite": r"(?P<name>'[^']*'|[\w .]+): row (?P<row>\d+), column (?P<col>\d+) is (?P<value>.+), not a finite number",
    "file_size": r"(?P<name>'[^']*'|[\w .]+) must be at most (?P<limit>\d+) MiB, got (?P<got>[\d.]+) MiB",
    "file_type": r"filename must end in \.csv or \.npy, got (?P<value>.+)",
    "probs_shape": r"probs must have the shape of logits (?P<shape>.+), got (?P<got>.+)",
    "logits_finite": r"logits must be finite or -inf \(a masked entry\), got nan or \+inf",
    "stochastic": r"mapping must be deterministic to be checked: (?P<mapping>.+) draws random noise, so its .+",
    "target_required": r"target \(a class index, or one per row\) is required for mapping (?P<mapping>.+)",
    "target_rows": r"target must be one integer class index or (?P<rows>\d+) of them \(one per row\)",
    "target_unused": r"target is only used by mappings that need one; (?P<mapping>.+) does not",
    # probcore.check: diagnoses of a mismatching row
    "diag_overflow": r"reproduced by exp\(x\) / sum exp\(x\) in (?P<dtype>\w+) without subtracting max x: exp overflows"
                     r" / underflows beyond \|x\| = (?P<limit>[\d.]+) \(here up to (?P<big>[^)]+)\), giving nan, inf or 0;"
                     r" compute exp\(x - max x\) instead \(the result is the same\)",
    "diag_passthrough": r"your output equals the (?P<what>logits x|scaled logits x / T): the mapping was not applied",
    "diag_log_probs": r"your output is log p: exp\(output\) equals the reference \(log-probabilities, e\.g\. log_softmax,"
                      r" instead of p\)",
    "diag_renormalisation": r"your row sums to (?P<sum>\S+), and dividing it by that sum gives the reference: missing"
                            r" renormalisation \(divide by the sum\)",
    "diag_wrong_axis": r"your rows equal the mapping applied down the columns \(dim=0\): normalise each row \(the last axis\)"
                       r" instead",
    "diag_top_k": r"your row matches top-k with k = (?P<got>\d+) instead of (?P<want>\d+): k is off by one",
    "diag_top_p": r"your row keeps the top (?P<got>\d+) entries instead of (?P<want>\d+): the top-p cut-off keeps one entry"
                  r" (?P<side>too many|too few) \(>= versus >, or the cumulative sum shifted by one\)",
    "diag_threshold": r"your row matches the threshold tau computed from the top (?P<got>\d+) entries instead of (?P<want>\d+):"
                      r" the support size is off by one \((?P<side>one too many|one too few); .+",
    "diag_temperature": r"your row matches temperature T' = (?P<new>\S+) instead of T = (?P<old>\S+) \(fitted(?P<note>.*)\):"
                        r" the logits are scaled by (?P<c>\S+) relative to your setting",
    "diag_beta": r"your row matches beta' = (?P<new>\S+) instead of beta = (?P<old>\S+) \(fitted(?P<note>.*)\): the logits"
                 r" are scaled by (?P<c>\S+) relative to your setting",
    "diag_precision": r"your row agrees only to (?P<dtype>\w+) resolution \(max error (?P<err>\S+), \w+ epsilon (?P<eps>\S+)\):"
                      r" compute in float64, or loosen atol / rtol",
    "diag_masked": r"(?P<where>.+) for a row whose logits are all -inf \(fully masked\): the reference is all zeros; x - max x"
                   r" is nan there, so such rows need a guard",
    "diag_overflow_nonfinite": r"(?P<where>.+) with logits up to (?P<big>\S+): an overflow \(exp passes (?P<dtype>\w+)'s range"
                               r" beyond (?P<limit>[\d.]+)\); the mapping is shift-invariant, so subtract the row max first:"
                               r" the result is the same",
    "diag_nonfinite": r"your output has (?P<where>.+) where the reference is finite",
    "diag_not_diagnosed": r"not diagnosed: only the first (?P<budget>\d+) failing rows are analysed",
    "where_indices": r"nan / inf at indices (?P<indices>.+)",
    "where_zero_row": r"an all-zero row",
    "side_many": r"(?:one )?too many",
    "side_few": r"(?:one )?too few",
    "not_unique": r" \(not unique: nearby temperatures give the same output\)",
    "what_logits": r"logits x",
    "what_scaled": r"scaled logits x / T",
}
NESTED = {"error", "where", "side", "note", "what"}
_PATTERNS = {key: re.compile(pattern) for key, pattern in MESSAGE_PATTERNS.items()}


def message_id(message: str) -> str | None:
    """The id of the known message ``message`` (None if unknown)."""
    return next((key for key, pattern in _PATTERNS.items() if pattern.fullmatch(message)), None)


def localize(message: str) -> str:
    """A message from probcore in the current language: its template ``error.<id>`` filled with the
    fields matched in the English text (those in NESTED translated in turn); as it is when the
    language is English, the message unknown or the template missing."""
    key = message_id(message)
    template = catalogue(language()).get(f"error.{key}") if key and language() != "en" else None
    if template is None:
        return message
    fields = _PATTERNS[key].fullmatch(message).groupdict()
    return template.format(**{k: localize(v) if k in NESTED and v else (v or "") for k, v in fields.items()})


# ---- the templates, by id (English: probcore's own message) ----
STRINGS = {
    "error.real": {
        "zh": "{name} 必须是实数，收到 {value}",
    },
    "error.temperature": {
        "zh": "温度必须是非零的有限值（取负值得到 softmin），收到 {value}",
    },
    "error.open_positive": {
        "zh": "{name} 必须在 (0, ∞) 内，收到 {value}",
    },
    "error.nonnegative": {
        "zh": "{name} 必须在 [0, ∞) 内，收到 {value}",
    },
    "error.beta": {
        "zh": "β 必须是有限值，收到 {value}",
    },
    "error.order": {
        "zh": "阶数必须是 ≥ 2 的偶数，收到 {value}",
    },
    "error.k": {
        "zh": "k 必须是 [1, {n}] 中的整数（n = {n}），收到 {value}",
    },
    "error.top_p": {
        "zh": "top_p 必须在 (0, 1] 内，收到 {value}",
    },
    "error.alpha": {
        "zh": "α 必须是 > 0 的有限实数，收到 {value}",
    },
    "error.one_of": {
        "zh": "{name} 必须是 {choices} 之一；收到 {value}",
    },
    "error.integer_at_least": {
        "zh": "{name} 必须是 ≥ {low} 的整数，收到 {value}",
    },
    "error.temperature_or_beta": {
        "zh": "温度与 β 只能给一个（β = 1 / 温度）",
    },
    "error.k_or_top_p": {
        "zh": "k（[1, n] 中的整数）与 top_p（(0, 1] 中的实数）必须恰好给一个",
    },
    "error.bool": {
        "zh": "{name} 必须是 True 或 False，收到 {value}",
    },
    "error.unknown_param": {
        "zh": "{mapping} 没有参数 {name}；可用的参数：{valid}",
    },
    "error.no_analytic_jacobian": {
        "zh": "没有解析雅可比矩阵：自动微分需要 n 次反向传播，只在 n ≤ {limit} 时显示",
    },
    "error.not_finite": {
        "zh": "{token} 不是有限数",
    },
    "error.not_a_number": {
        "zh": "{token} 不是数字",
    },
    "error.overflows": {
        "zh": "{token} 超出 float64 的范围（|值| > 1.8e308）",
    },
    "error.value_at": {
        "zh": "{name}：第 {i} 个值 {error}",
    },
    "error.line_column": {
        "zh": "{name}：第 {line} 行第 {col} 列：{error}",
    },
    "error.line_width": {
        "zh": "{name}：第 {line} 行有 {got} 个值，而第一行有 {width} 个",
    },
    "error.unit_width": {
        "zh": "{name}：第 {i} 行有 {got} 个值，而第 1 行有 {width} 个",
    },
    "error.empty": {
        "zh": "{name} 为空：请输入以逗号、空格或换行分隔的数字",
    },
    "error.max_cols": {
        "zh": "{name} 每行最多 {limit} 个值，收到 {got} 个",
    },
    "error.max_rows": {
        "zh": "{name} 最多 {limit} 行，收到 {got} 行",
    },
    "error.max_values": {
        "zh": "{name} 总共最多 {limit} 个值，收到 {got} 个",
    },
    "error.max_chars": {
        "zh": "{name} 最多 {limit} 个字符，收到 {got} 个；请改为上传 .npy 文件",
    },
    "error.no_rows": {
        "zh": "{name} 中没有数字行",
    },
    "error.not_utf8": {
        "zh": "{name} 不是 UTF-8 文本",
    },
    "error.npy_pickle": {
        "zh": "{name} 不是有效的 .npy 文件（不接受 pickle 数据）：{detail}",
    },
    "error.npy_invalid": {
        "zh": "{name} 不是有效的 .npy 文件：{detail}",
    },
    "error.npy_dtype": {
        "zh": "{name} 必须是实数数组（浮点或整数），收到 dtype {dtype}",
    },
    "error.npy_shape": {
        "zh": "{name} 必须是非空的一维 (n,) 或二维 (rows, n) 数组，收到形状 {shape}",
    },
    "error.npy_nonfinite": {
        "zh": "{name}：第 {row} 行第 {col} 列为 {value}，不是有限数",
    },
    "error.file_size": {
        "zh": "{name} 最大为 {limit} MiB，收到 {got} MiB",
    },
    "error.file_type": {
        "zh": "文件名必须以 .csv 或 .npy 结尾，收到 {value}",
    },
    "error.probs_shape": {
        "zh": "概率的形状必须与 logits 相同 {shape}，收到 {got}",
    },
    "error.logits_finite": {
        "zh": "logits 必须是有限值或 −inf（被屏蔽的项），收到 nan 或 +inf",
    },
    "error.stochastic": {
        "zh": "只能检查确定性的映射：{mapping} 会抽取随机噪声，输出每次都不同",
    },
    "error.target_required": {
        "zh": "映射 {mapping} 需要目标类别（一个类别索引，或每行一个）",
    },
    "error.target_rows": {
        "zh": "目标类别必须是一个整数索引，或 {rows} 个（每行一个）",
    },
    "error.target_unused": {
        "zh": "只有需要目标类别的映射才使用它；{mapping} 不需要",
    },
    "error.diag_overflow": {
        "zh": "用 {dtype} 计算 exp(x) / sum exp(x) 而不减去 max x 即可复现：|x| 超过 {limit} 时 exp 上溢或下溢（这里最大到 {big}），得到 nan、inf 或 0；请改为计算 exp(x − max x)（结果相同）",
    },
    "error.diag_passthrough": {
        "zh": "你的输出等于{what}：没有应用映射",
    },
    "error.diag_log_probs": {
        "zh": "你的输出是 log p：exp(输出) 等于参考值（给出的是对数概率，例如 log_softmax，而不是 p）",
    },
    "error.diag_renormalisation": {
        "zh": "你的这一行之和为 {sum}，除以这个和就得到参考值：缺少重新归一化（请除以和）",
    },
    "error.diag_wrong_axis": {
        "zh": "你的各行等于沿列（dim=0）应用映射的结果：应对每一行（最后一个轴）归一化",
    },
    "error.diag_top_k": {
        "zh": "你的这一行与 k = {got} 的 top-k 一致，而不是 k = {want}：k 差了一",
    },
    "error.diag_top_p": {
        "zh": "你的这一行保留了最大的 {got} 项，而不是 {want} 项：top-p 截断{side}保留了一项（>= 与 > 之别，或累积和错位了一位）",
    },
    "error.diag_threshold": {
        "zh": "你的这一行与由最大 {got} 项算出的阈值一致，而不是 {want} 项：支撑集大小差了一（{side}算了一项；sparsemax 的 K = max{{k : 1 + k z₍ₖ₎ > Σⱼ≤ₖ z₍ⱼ₎}}，下标从 1 开始）",
    },
    "error.diag_temperature": {
        "zh": "你的这一行与温度 T′ = {new} 一致，而不是 T = {old}（拟合所得{note}）：logits 相对于你的设置被放大了 {c} 倍",
    },
    "error.diag_beta": {
        "zh": "你的这一行与 β′ = {new} 一致，而不是 β = {old}（拟合所得{note}）：logits 相对于你的设置被放大了 {c} 倍",
    },
    "error.diag_precision": {
        "zh": "你的这一行只在 {dtype} 精度下一致（最大误差 {err}，{dtype} 机器精度 {eps}）：请用 float64 计算，或放宽 atol / rtol",
    },
    "error.diag_masked": {
        "zh": "{where}，而这一行的 logits 全为 −inf（全部被屏蔽）：参考值全为 0；此时 x − max x 为 nan，这类行需要单独处理",
    },
    "error.diag_overflow_nonfinite": {
        "zh": "{where}，logits 最大到 {big}：发生上溢（超过 {limit} 时 exp 超出 {dtype} 的范围）；该映射具有平移不变性，请先减去每行的最大值，结果不变",
    },
    "error.diag_nonfinite": {
        "zh": "你的输出中{where}，而参考值是有限的",
    },
    "error.diag_not_diagnosed": {
        "zh": "未诊断：只分析前 {budget} 个不匹配的行",
    },
    "error.where_indices": {
        "zh": "在下标 {indices} 处出现 nan / inf",
    },
    "error.where_zero_row": {
        "zh": "出现全零行",
    },
    "error.side_many": {
        "zh": "多",
    },
    "error.side_few": {
        "zh": "少",
    },
    "error.not_unique": {
        "zh": "，不唯一：相近的温度给出相同的输出",
    },
    "error.what_logits": {
        "zh": " logits x",
    },
    "error.what_scaled": {
        "zh": "缩放后的 logits x / T",
    },
}

register(STRINGS)
