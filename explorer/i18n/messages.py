"""probcore's messages in the interface language: the Chinese template (``error.<code>``) of each
coded error (probcore.errors) and diagnosis (probcore.check.SENTENCES), filled with its fields.
:func:`localize` is what explorer.i18n.t applies to a field named ``error`` or ``cause``."""

from __future__ import annotations

import re

from explorer.i18n.catalogue import catalogue, language, register
from probcore.check import Sentence
from probcore.errors import ProbcoreError

# ---- messages from probcore in the interface language ----
# probcore's errors (probcore.errors.ProbcoreError) and the checker's diagnoses (probcore.check.Sentence)
# carry a stable code and their fields: a language gives the template ``error.<code>``, filled with
# the fields (a nested message translated in turn). Only the explorer's own three messages below are
# recognised by the pattern of their English text. Unknown text is shown as it is.
MESSAGE_PATTERNS = {
    # the explorer's own messages (views/check/compute.py, explorer/compute.py)
    "no_analytic_jacobian": r"no analytic Jacobian: autograd needs n vector-Jacobian products, shown for n <= (?P<limit>\d+)",
    "unit_width": r"(?P<name>'[^']*'|[\w .]+): (?P<unit>row|line) (?P<i>\d+) has (?P<got>\d+) values, expected (?P<width>\d+) like (?:row|line) 1",
    "max_chars": r"(?P<name>'[^']*'|[\w .]+) must be at most (?P<limit>[\d,]+) characters, got (?P<got>[\d,]+); upload a \.npy file",
}
_PATTERNS = {key: re.compile(pattern) for key, pattern in MESSAGE_PATTERNS.items()}


def message_id(message: str) -> str | None:
    """The id of the known message ``message`` (None if unknown)."""
    return next((key for key, pattern in _PATTERNS.items() if pattern.fullmatch(message)), None)


def localize(message: str | BaseException) -> str:
    """A message from probcore in the current language: a :class:`ProbcoreError` or a checker's
    :class:`Sentence` by its code (the template ``error.<code>`` filled with its fields, a nested
    message translated in turn); the explorer's own few messages by their pattern; as it is when the
    language is English, the message unknown or the template missing."""
    if isinstance(message, (ProbcoreError, Sentence)):
        template = catalogue(language()).get(f"error.{message.code}") if language() != "en" else None
        if template is None:
            return str(message)
        return template.format(
            **{k: localize(v) if isinstance(v, (BaseException, Sentence)) else v for k, v in message.fields.items()}
        )
    if isinstance(message, BaseException):
        message = str(message)
    key = message_id(message)
    template = catalogue(language()).get(f"error.{key}") if key and language() != "en" else None
    if template is None:
        return message
    fields = _PATTERNS[key].fullmatch(message).groupdict()
    return template.format(**{k: v or "" for k, v in fields.items()})


# ---- the templates, by id (English: probcore's own message) ----
STRINGS = {
    "error.alpha_shape": {
        "zh": "形状为 {shape} 的 alpha 与 dim={dim} 下形状为 {x_shape} 的 x 不匹配：alpha 必须能广播到 {kept}（x 在 dim 上长度为 1 的形状）{rows}",
    },
    "error.fused": {
        "zh": "fused 必须是 None（自动）、True 或 False，收到 {value}",
    },
    "error.diag_ties": {
        "zh": "你的这一行是把 x 中并列的元素互换后的参考结果（下标 {indices}）：并列的处理方式不同；并列元素中选哪一个都对（probcore 保留 torch.topk 返回的那些），所以请把并列元素当作集合来比较",
    },
    "error.diag_clipping": {
        "zh": "你的这一行是没有截断 max(0, .) 的 {formula}：它在支撑集上等于参考结果，在支撑集外有 {count} 个非零元素（最小到 {low}）；请在 0 处截断",
    },
    "error.diag_wrong_mapping": {
        "zh": "你的这一行与 {label} 一致，而不是 {mapping}：你的代码计算的是另一个映射（或者检查时给错了映射）",
    },
    "error.diag_temperature_forgotten": {
        "zh": "你的这一行与 {name} = 1 一致：{name} = {value} 没有被应用（logits 在进入映射前需要先按它缩放）",
    },
    "error.diag_temperature_twice": {
        "zh": "你的这一行与 {name}' = {name}^2 = {twice} 一致：logits 被 {name} = {value} 缩放了两次",
    },
    "error.diag_float16_overflow": {
        "zh": "{what} 在 float16 中溢出：它达到 {big}，超过了 float16 的最大值 {limit}，变成 inf（随后变成 nan）；请在 float32 中计算，再把结果转换为 float16（torch.softmax 就是这样做的）",
    },
    "error.diag_float16_sum": {
        "zh": "{where}，logits 最大到 {big}：{count} 个这样的值之和超过了 float16 的最大值 {limit}；请在 float32 中计算（先减去每行的最大值），再把结果转换为 float16",
    },
    "error.x_dtype": {
        "zh": "x 必须是浮点张量（float16、bfloat16、float32 或 float64），收到 {got}",
    },
    "error.x_scalar": {
        "zh": "x 至少要有一个维度（被映射的那一维），收到的是 0 维张量",
    },
    "error.dim": {
        "zh": "对这个 {ndim} 维的 x，dim 必须是 [{low}, {high}] 中的整数，收到 {value}",
    },
    "error.x_empty": {
        "zh": "x 沿 dim 至少要有一个元素（n >= 1）",
    },
    "error.x_vector": {
        "zh": "x 必须是一维浮点数组，收到形状 {shape}",
    },
    "error.target_dtype": {
        "zh": "target 必须是 [0, {high}] 中的整数类别下标，收到 dtype {dtype}",
    },
    "error.target_shape": {
        "zh": "target 的形状必须是 x 去掉 dim 后的形状 {shape}，收到 {got}",
    },
    "error.target_range": {
        "zh": "target 中的类别下标必须在 [0, {high}] 中",
    },
    "error.target_index": {
        "zh": "target 必须是 [0, {high}] 中的类别下标，收到 {value}",
    },
    "error.alpha_dtype": {
        "zh": "alpha 必须是实数或实数张量，收到 dtype {dtype}",
    },
    "error.alpha_entries": {
        "zh": "alpha 必须是 > 0 的有限实数（alpha 张量的每个元素都是）",
    },
    "error.jacobian_generator": {
        "zh": "gumbel_softmax 是随机的：传入 generator=（一个设定了种子的 torch.Generator），才能得到它所抽样本的雅可比矩阵",
    },
    "error.ignore_index": {
        "zh": "ignore_index 必须是整数（或 0 维整数张量），收到 {value}",
    },
    "error.loss_input": {
        "zh": "{name} 必须是形状为 (C,)、(N, C) 或 (N, C, d1, ...) 的浮点张量，收到 {got}",
    },
    "error.loss_target_dtype": {
        "zh": "target 必须是类别下标在 [0, {n}) 中的整数张量，收到 {got}",
    },
    "error.loss_target_shape": {
        "zh": "target 的形状必须是 {shape}（{name} 去掉类别维 {class_dim} 后的形状），收到 {got}",
    },
    "error.loss_target_range": {
        "zh": "target 中的类别下标必须在 [0, {n}) 中或等于 ignore_index={ignore_index}，收到 {value}",
    },
    "error.not_text": {
        "zh": "{name} 必须是文本，收到 {type}",
    },
    "error.not_bytes": {
        "zh": "file_bytes 必须是 bytes，收到 {type}",
    },
    "error.file_suffix": {
        "zh": "suffix 必须是 'csv' 或 'npy'，收到 {value}",
    },
    "error.rows_numeric": {
        "zh": "{name} 必须是形状为 (n,) 或 (rows, n) 的数值数组",
    },
    "error.rows_shape": {
        "zh": "{name} 必须是形状为 (n,) 或 (rows, n) 的非空数组，收到形状 {shape}",
    },
    "error.no_verdicts": {
        "zh": "verdicts 至少要包含一个 RowVerdict",
    },
    "error.skip": {
        "zh": "skip 必须是由 {choices} 中的用例 id 组成的集合；收到 {value}",
    },
    "error.kit_target": {
        "zh": "target 由测试套件选定（每行一个）；不要传入",
    },
    "error.dtype": {
        "zh": "dtype 必须是 {choices} 之一；收到 {value}",
    },
    "error.float_tensor": {
        "zh": "{name} 必须是浮点张量，收到 {got}",
    },
    "error.freqs_shape": {
        "zh": "freqs 必须是至少有 1 个元素的一维序列，收到形状 {shape}",
    },
    "error.freqs_entries": {
        "zh": "freqs 的元素必须在 (0, inf) 中，收到最小值 {min}（非有限值：{nonfinite}）",
    },
    "error.freqs_count": {
        "zh": "freqs 必须有 {n} 个元素（树的每个类别一个），收到 {got}",
    },
    "error.q_shape": {
        "zh": "q 的形状必须是 ({n},) 或 {shape}（x 的形状），收到 {got}",
    },
    "error.q_entries": {
        "zh": "q 的元素必须在 (0, 1] 中：每个类别都需要一个正的提议概率",
    },
    "error.q_sum": {
        "zh": "q 沿最后一维之和必须为 1（误差 1e-4 以内），相差 {off_by}",
    },
    "error.q_batch_shape": {
        "zh": "q 的形状必须是 (n,) 或 {batch_shape} + (n,)（批形状加类别数），收到 {got}",
    },
    "error.broadcast": {
        "zh": "{name} 必须能广播到 {to} 的形状 {shape}，收到 {got}",
    },
    "error.h_ndim": {
        "zh": "h 至少要有 1 个维度 (..., d)",
    },
    "error.node_vectors_shape": {
        "zh": "node_vectors 的形状必须是 {shape}（n_classes - 1 个内部节点，d = h.shape[-1]），收到 {got}",
    },
    "error.node_vectors_dtype": {
        "zh": "node_vectors 的 dtype {dtype} 必须与 h 的 dtype {h_dtype} 相同",
    },
    "error.hs_target": {
        "zh": "target 必须是形状为 {shape}（h 去掉最后一维）的 long 张量",
    },
    "error.hs_target_range": {
        "zh": "target 的元素必须在 [0, {high}] 中",
    },
    "error.x_1d": {
        "zh": "x 必须是一维的 (n,)，收到形状 {shape}",
    },
    "error.x_sampled_ndim": {
        "zh": "x_sampled 的形状必须是 (..., m)，且 m >= 1，收到 {got}",
    },
    "error.x_sampled_shape": {
        "zh": "x_sampled 的形状必须是 {shape} + (m,)（x_target 加 m 个样本），收到 {got}",
    },
    "error.x_noise_shape": {
        "zh": "x_noise 的形状必须是 {shape}（x_target 加 k = {k} 个噪声样本），收到 {got}",
    },
    "error.methods": {
        "zh": "methods 必须是 {choices} 的非空子集；收到 {value}",
    },
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
        "zh": "阶数必须是 2 到 {high} 之间的偶数，收到 {value}",
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
        "zh": "没有解析雅可比矩阵：自动微分需要 n 个向量-雅可比积，只在 n ≤ {limit} 时显示",
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
