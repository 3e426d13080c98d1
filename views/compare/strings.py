"""The words of the Compare page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.compare": {
        "en": "Compare",
        "zh": "对比",
    },
    "compare.intro": {
        "en": "Every selected mapping applied to the same logits. A cross on the axis, in the mapping's colour, marks an exact zero; hover for the value.",
        "zh": "所有选中的映射作用于同一组 logits。轴上与映射同色的 × 表示恰好为 0；悬停查看数值。",
    },
    "compare.log_y": {
        "en": "logarithmic probability axis",
        "zh": "概率轴取对数",
    },
    "compare.table": {
        "en": "Statistics and loss",
        "zh": "统计量与损失",
    },
    "compare.table_note": {
        "en": "Support = number of pᵢ > 0; entropy = −Σ pᵢ log pᵢ; loss and its gradient ∇ₓ for target class {target} (on the server by autograd, in the browser by its closed form).",
        "zh": "支撑集大小 = pᵢ > 0 的个数；熵 = −Σ pᵢ log pᵢ；目标类别 {target} 的损失及其梯度 ∇ₓ（服务器端由自动微分计算，浏览器端由其闭式计算）。",
    },
    "compare.support_underflow": {
        "en": "{support} ({under} rounded to 0)",
        "zh": "{support}（其中 {under} 个舍入为 0）",
    },
    "compare.underflow_note": {
        "en": "Underflow in {mappings}: a class whose p is > 0 (every p of softmax is) was computed as 0, since float64 has no number between 0 and 4.9e-324. It is marked ○ on the chart, not × (× is an exact zero, such as sparsemax outside its support), and counted in the support.",
        "zh": "{mappings} 出现下溢：某些类别的 p 大于 0（softmax 的每个 p 都大于 0），但被算成了 0，因为 float64 在 0 与 4.9e-324 之间没有数。图中用 ○ 标出，而不是 ×（× 表示恰为 0，例如 sparsemax 支撑集之外的类别），并计入支撑集大小。",
    },
    "compare.formulas": {
        "en": "Formulas and reference code",
        "zh": "公式与参考代码",
    },
    "compare.reference": {
        "en": "numpy reference (probcore.reference):",
        "zh": "numpy 参考实现（probcore.reference）：",
    },
    "compare.formula_pick": {
        "en": "Show the formula and numpy reference of",
        "zh": "显示公式与 numpy 参考实现：",
    },
    "q_compare.q": {
        "en": "Every logit grows by 10 (x → x + 10). What happens to the sparsemax output p?",
        "zh": "每个 logit 都加 10（x → x + 10），sparsemax 的输出 p 会怎样？",
    },
    "q_compare.c0": {
        "en": "nothing: p stays the same",
        "zh": "不变：p 完全相同",
    },
    "q_compare.c1": {
        "en": "p becomes one-hot",
        "zh": "p 变成 one-hot",
    },
    "q_compare.c2": {
        "en": "p becomes uniform",
        "zh": "p 变成均匀分布",
    },
    "q_compare.do": {
        "en": "Add 10 to every logit",
        "zh": "每个 logit 加 10",
    },
    "q_compare.a": {
        "en": "Adding the same number to every logit cancels in the normalisation (softmax) and in the threshold λ (sparsemax, entmax): {same} of the shown mappings give the same p (to 1e-9) at x + 10. Changed (largest change in p): {changed}. Taylor softmax is the exception: 1 + x + x²/2 depends on x itself, not only on differences. Press the button and watch the chart stay put.",
        "zh": "给所有 logit 加同一个数，会在归一化（softmax）和阈值 λ（sparsemax、entmax）中抵消：所显示的映射中有 {same} 个在 x + 10 处给出相同的 p（误差 1e-9 以内）。发生变化的（p 的最大变化）：{changed}。Taylor softmax 是例外：1 + x + x²/2 依赖 x 本身，而不只是差值。按下按钮，看图保持不动。",
    },
}
