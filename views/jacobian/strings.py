"""The words of the Jacobian page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.jacobian": {
        "en": "Jacobian",
        "zh": "雅可比矩阵",
    },
    "jacobian.intro": {
        "en": "J[i, j] = ∂pᵢ/∂xⱼ at the current logits: probcore's analytic Jacobian beside torch autograd's.",
        "zh": "当前 logits 处的 J[i, j] = ∂pᵢ/∂xⱼ：probcore 的解析雅可比矩阵与 torch 自动微分并排。",
    },
    "jacobian.table_note": {
        "en": "For softmax ½‖J‖₁ = (1 − Σ p²)/|T| (J = (diag p − ppᵀ)/T). Sparsemax: rank = support − 1 (I − 11ᵀ/|S| on the support).",
        "zh": "Softmax 满足 ½‖J‖₁ = (1 − Σ p²)/|T|（J = (diag p − ppᵀ)/T）。Sparsemax：秩 = 支撑集大小 − 1（在支撑集上为 I − 11ᵀ/|S|）。",
    },
    "jacobian.no_autograd": {
        "en": "n = {n} > {limit}: the autograd Jacobian (n vector-Jacobian products) and the rank (an SVD) are skipped.",
        "zh": "n = {n} > {limit}：跳过自动微分雅可比（需 n 个向量-雅可比积）与秩（需 SVD）。",
    },
    "q_jacobian.q": {
        "en": "Sparsemax gives some class exactly p = 0. What are that class's row and column of the Jacobian ∂p/∂x?",
        "zh": "sparsemax 给某个类别的概率恰为 p = 0，该类别在雅可比矩阵 ∂p/∂x 中的行和列是什么？",
    },
    "q_jacobian.c0": {
        "en": "exactly zero",
        "zh": "恰好为零",
    },
    "q_jacobian.c1": {
        "en": "small but not zero",
        "zh": "很小但不为零",
    },
    "q_jacobian.c2": {
        "en": "the same as softmax's",
        "zh": "与 softmax 的相同",
    },
    "q_jacobian.do": {
        "en": "Use two tied logits and a tail (some zeros)",
        "zh": "使用两个并列 logit 加尾部（有零）",
    },
    "q_jacobian.a": {
        "en": "Sparsemax's Jacobian is diag(s) − s sᵀ/|S| with s the support indicator, so it vanishes outside the support: class(es) {zeros} have p = 0 and the largest |J| entry in their rows and columns is {largest}; the support has {support} classes.",
        "zh": "sparsemax 的雅可比矩阵为 diag(s) − s sᵀ/|S|，s 为支撑的指示向量，所以支撑之外全为零：类别 {zeros} 的 p = 0，它们的行和列中 |J| 的最大值为 {largest}；支撑共有 {support} 个类别。",
    },
    "q_jacobian.none": {
        "en": "Sparsemax gives no class p = 0 at these logits, so there is nothing to see yet: press the button.",
        "zh": "在这些 logits 下 sparsemax 没有给任何类别 p = 0，暂时看不到：请按按钮。",
    },
}
