"""The words of the Check my numbers page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.check": {
        "en": "Check my numbers",
        "zh": "检查我的数值",
    },
    "check.intro": {
        "en": "Paste logits and the probabilities your own code produced: probcore recomputes them in float64 and tells you, row by row, whether they match and, if not, the likely cause.",
        "zh": "粘贴 logits 和你自己的代码算出的概率：probcore 用 float64 重新计算，逐行告诉你是否一致；不一致时给出最可能的原因。",
    },
    "check.explain": {
        "en": "A row is **ok** when every entry satisfies |pᵢ − refᵢ| ≤ atol + rtol·|refᵢ|. For a mismatching row, probcore.check tries typical mistakes (no max-subtraction, a forgotten temperature, log-probabilities, a sparsemax threshold off by one, the wrong axis, low precision…) and names the first one that reproduces your numbers.",
        "zh": "当每个分量都满足 |pᵢ − refᵢ| ≤ atol + rtol·|refᵢ| 时，该行判为 **一致**。对不一致的行，probcore.check 会逐一尝试常见错误（没有减去最大值、忘了温度、输出了对数概率、sparsemax 阈值的支撑集大小差一、归一化的轴不对、精度不够……），报告第一个能复现你的数字的原因。",
    },
    "check.example": {
        "en": "Example",
        "zh": "示例",
    },
    "check.example_help": {
        "en": "Fills in logits and the output of an example implementation (shown at the bottom), the mapping and its parameters.",
        "zh": "填入 logits、某个示例实现的输出（代码见页面底部）、映射及其参数。",
    },
    "check.ex_none": {
        "en": "— my own numbers —",
        "zh": "— 我自己的数字 —",
    },
    "check.ex_softmax_ok": {
        "en": "softmax, correct (max subtracted)",
        "zh": "softmax，正确实现（减去最大值）",
    },
    "check.ex_softmax_no_max": {
        "en": "softmax without max-subtraction (large logits overflow)",
        "zh": "softmax 没有减去最大值（logits 很大时溢出）",
    },
    "check.ex_softmax_forgot_temperature": {
        "en": "softmax with T = 2, temperature forgotten",
        "zh": "T = 2 的 softmax，忘了除以温度",
    },
    "check.ex_log_softmax": {
        "en": "softmax, but returns log p",
        "zh": "softmax，但返回的是 log p",
    },
    "check.ex_sparsemax_ok": {
        "en": "sparsemax, correct",
        "zh": "sparsemax，正确实现",
    },
    "check.ex_sparsemax_off_by_one": {
        "en": "sparsemax, threshold from a support off by one",
        "zh": "sparsemax，阈值所用的支撑集大小差一",
    },
    "check.example_code": {
        "en": "The example implementation that produced these outputs",
        "zh": "产生这些输出的示例实现",
    },
    "check.mapping": {
        "en": "mapping",
        "zh": "映射",
    },
    "check.atol": {
        "en": "atol",
        "zh": "atol（绝对容差）",
    },
    "check.rtol": {
        "en": "rtol",
        "zh": "rtol（相对容差）",
    },
    "check.tol_help": {
        "en": "Entry i passes when |pᵢ − refᵢ| ≤ atol + rtol·|refᵢ| (numpy.isclose).",
        "zh": "当 |pᵢ − refᵢ| ≤ atol + rtol·|refᵢ| 时分量 i 通过（numpy.isclose）。",
    },
    "check.target": {
        "en": "target class",
        "zh": "目标类别",
    },
    "check.target_help": {
        "en": "The class whose logit gets the margin (one index, used for every row).",
        "zh": "减去间隔的那个类别（一个下标，用于每一行）。",
    },
    "check.params_note": {
        "en": "Parameters of the mapping your code was meant to compute; an empty field uses the mapping's default.",
        "zh": "你的代码本应计算的映射参数；留空则使用该映射的默认值。",
    },
    "check.source": {
        "en": "Numbers from",
        "zh": "数字来源",
    },
    "check.source_paste": {
        "en": "pasted text",
        "zh": "粘贴文本",
    },
    "check.source_upload": {
        "en": "uploaded files (.csv / .npy)",
        "zh": "上传文件（.csv / .npy）",
    },
    "check.logits_text": {
        "en": "logits x (one row per line)",
        "zh": "logits x（每行一个样本）",
    },
    "check.probs_text": {
        "en": "your probabilities p (same shape)",
        "zh": "你的概率 p（形状相同）",
    },
    "check.text_help": {
        "en": "Numbers separated by commas or spaces, one row per line; [[…], […]] as printed by numpy also works. nan and inf are read as such.",
        "zh": "数字用逗号或空格分隔，每行一个样本；numpy 打印的 [[…], […]] 格式也可以。nan 和 inf 按原样读取。",
    },
    "check.empty": {
        "en": "Paste logits and your probabilities, or pick an example above.",
        "zh": "粘贴 logits 和你的概率，或在上方选一个示例。",
    },
    "check.bad_input": {
        "en": "Cannot read the numbers: {error}",
        "zh": "无法读取这些数字：{error}",
    },
    "check.logits_file": {
        "en": "logits x (.csv or .npy)",
        "zh": "logits x(.csv 或 .npy)",
    },
    "check.probs_file": {
        "en": "your probabilities p (.csv or .npy)",
        "zh": "你的概率 p(.csv 或 .npy)",
    },
    "check.file_too_big": {
        "en": "This file has {size:,} bytes; a file may have at most {mib} MiB.",
        "zh": "此文件有 {size:,} 字节；文件最多 {mib} MiB。",
    },
    "check.file_help": {
        "en": "CSV: one row per line, comma separated, optional header line. .npy: a 1-D or 2-D numeric array (no pickles). At most {rows:,} rows and {mib} MiB.",
        "zh": "CSV：每行一个样本，逗号分隔，可以有一行表头。.npy：一维或二维数值数组（不接受 pickle）。最多 {rows:,} 行、{mib} MiB。",
    },
    "check.empty_upload": {
        "en": "Upload both files: the logits and your probabilities, with the same shape.",
        "zh": "请上传两个文件：logits 和你的概率，形状相同。",
    },
    "check.cannot_check": {
        "en": "Cannot check: {error}",
        "zh": "无法检查：{error}",
    },
    "check.summary": {
        "en": "{passed} of {rows} rows match (largest error {error:.3g}).",
        "zh": "{rows} 行中有 {passed} 行一致（最大误差 {error:.3g}）。",
    },
    "check.summary_causes": {
        "en": "Mismatching rows: {causes}.",
        "zh": "不一致的行：{causes}。",
    },
    "check.more": {
        "en": " … (+{count})",
        "zh": " …（另有 {count} 个）",
    },
    "check.col_row": {
        "en": "row",
        "zh": "行",
    },
    "check.col_verdict": {
        "en": "verdict",
        "zh": "结论",
    },
    "check.col_max_err": {
        "en": "max |p − ref|",
        "zh": "max |p − ref|",
    },
    "check.col_differing": {
        "en": "entries that differ",
        "zh": "不一致的分量",
    },
    "check.col_cause": {
        "en": "likely cause",
        "zh": "可能原因",
    },
    "check.col_detail": {
        "en": "details (probcore.check)",
        "zh": "详细说明（probcore.check）",
    },
    "check.ok": {
        "en": "ok",
        "zh": "一致",
    },
    "check.mismatch": {
        "en": "mismatch",
        "zh": "不一致",
    },
    "check.cause_none": {
        "en": "—",
        "zh": "—",
    },
    "check.cause_unexplained": {
        "en": "no known cause found",
        "zh": "未找到已知原因",
    },
    "check.cause_max_subtraction": {
        "en": "overflow: no max-subtraction before exp",
        "zh": "溢出：exp 之前没有减去最大值",
    },
    "check.cause_nonfinite": {
        "en": "nan / inf in the output",
        "zh": "输出中有 nan / inf",
    },
    "check.cause_passthrough": {
        "en": "logits passed through unchanged",
        "zh": "直接输出了 logits",
    },
    "check.cause_log_probs": {
        "en": "log-probabilities instead of probabilities",
        "zh": "输出的是对数概率而不是概率",
    },
    "check.cause_renormalisation": {
        "en": "missing renormalisation",
        "zh": "缺少重新归一化",
    },
    "check.cause_wrong_axis": {
        "en": "normalised over the wrong axis",
        "zh": "在错误的轴上归一化",
    },
    "check.cause_top_k": {
        "en": "top-k / top-p support off by one",
        "zh": "top-k / top-p 的支撑集差一",
    },
    "check.cause_threshold": {
        "en": "threshold from a support off by one",
        "zh": "阈值所用的支撑集大小差一",
    },
    "check.cause_temperature": {
        "en": "wrong temperature",
        "zh": "温度不对",
    },
    "check.cause_precision": {
        "en": "low floating-point precision",
        "zh": "浮点精度不足",
    },
    "check.cause_float16_overflow": {
        "en": "float16 overflow: x / T computed in float16",
        "zh": "float16 溢出：x / T 在 float16 中计算",
    },
    "check.cause_clipping": {
        "en": "clipping max(0, .) forgotten: negative entries",
        "zh": "忘了截断 max(0, .)：出现负值",
    },
    "check.cause_ties": {
        "en": "ties broken differently",
        "zh": "并列的处理方式不同",
    },
    "check.cause_wrong_mapping": {
        "en": "another mapping's output",
        "zh": "另一个映射的输出",
    },
    "check.cause_temperature_forgotten": {
        "en": "temperature not applied",
        "zh": "没有应用温度",
    },
    "check.cause_temperature_twice": {
        "en": "temperature applied twice",
        "zh": "温度被应用了两次",
    },
    "check.cause_not_diagnosed": {
        "en": "not diagnosed (row limit)",
        "zh": "未诊断（超出行数上限）",
    },
    "check.row": {
        "en": "row shown in the chart",
        "zh": "图中显示的行",
    },
    "check.row_placeholder": {
        "en": "first mismatch",
        "zh": "第一个不一致的行",
    },
    "check.row_help": {
        "en": "Row index from 0; empty: the first mismatching row (else row 0).",
        "zh": "行号从 0 开始；留空则显示第一个不一致的行（没有则显示第 0 行）。",
    },
    "check.row_range": {
        "en": "Row {row} does not exist (the data have {rows} rows): showing the first mismatch.",
        "zh": "第 {row} 行不存在（数据只有 {rows} 行）：改为显示第一个不一致的行。",
    },
    "check.top_view": {
        "en": "n = {n}: showing {top} entries, the largest errors first, then the largest reference values.",
        "zh": "n = {n}：只显示 {top} 个分量，先是误差最大的，再是参考值最大的。",
    },
    "check.fig_reference": {
        "en": "reference ({mapping}, probcore)",
        "zh": "参考值（{mapping}，probcore）",
    },
    "check.fig_yours": {
        "en": "your p",
        "zh": "你的 p",
    },
    "check.fig_differs": {
        "en": "differs (outside the tolerance)",
        "zh": "不一致（超出容差）",
    },
    "check.fig_nonfinite": {
        "en": "your p is nan / inf",
        "zh": "你的 p 是 nan / inf",
    },
    "check.fig_entry": {
        "en": "entry i",
        "zh": "分量 i",
    },
    "check.fig_title": {
        "en": "Row {row}: {verdict}",
        "zh": "第 {row} 行：{verdict}",
    },
    "check.row_cause": {
        "en": "Likely cause for this row: {cause}",
        "zh": "该行的可能原因：{cause}",
    },
    "check.download": {
        "en": "The reference output ({rows} × {n}, float64) computed by probcore:",
        "zh": "probcore 计算的参考输出（{rows} × {n}，float64）：",
    },
    "check.download_csv": {
        "en": "reference.csv",
        "zh": "reference.csv",
    },
    "check.download_npy": {
        "en": "reference.npy",
        "zh": "reference.npy",
    },
}
