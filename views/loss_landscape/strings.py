"""The words of the Loss landscape page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.loss": {
        "en": "Loss landscape",
        "zh": "损失曲面",
    },
    "loss.intro": {
        "en": "Losses over logits. For a shift-invariant loss, n = 3 logits reduce to the plane (x₀ − x₂, x₁ − x₂); Taylor softmax is not shift invariant, so for it the plane is only the slice x₂ = 0.",
        "zh": "logits 上的损失。对平移不变的损失，n = 3 的 logits 可化为平面 (x₀ − x₂, x₁ − x₂)；Taylor softmax 不具平移不变性，对它而言平面只是切片 x₂ = 0。",
    },
    "loss.target3": {
        "en": "target class {target} does not exist for n = 3: the plane uses class 0.",
        "zh": "n = 3 时不存在目标类别 {target}：平面图使用类别 0。",
    },
    "loss.plane": {
        "en": "Loss over the plane",
        "zh": "平面上的损失",
    },
    "loss.radius": {
        "en": "plane radius",
        "zh": "平面半径",
    },
    "loss.plane_title": {
        "en": "{mapping}, target class {target} (arrows: descent step)",
        "zh": "{mapping}，目标类别 {target}（箭头：下降一步）",
    },
    "loss.plane_note": {
        "en": "Arrows: where one gradient-descent step on all three logits, x ← x − η∇L, moves the point (x₀ − x₂, x₁ − x₂), i.e. −(g₀ − g₂, g₁ − g₂) with gᵢ = ∂L/∂xᵢ; for a shift-invariant loss that is −(2g₀ + g₁, g₀ + 2g₁), not the partial gradient −(g₀, g₁) in the plane. Star: the current logits (n = 3).",
        "zh": "箭头：对全部三个 logit 做一步梯度下降 x ← x − η∇L 时，点 (x₀ − x₂, x₁ − x₂) 的移动方向，即 −(g₀ − g₂, g₁ − g₂)，其中 gᵢ = ∂L/∂xᵢ；对平移不变的损失它等于 −(2g₀ + g₁, g₀ + 2g₁)，而不是平面内的偏导数 −(g₀, g₁)。星号：当前 logits（n = 3）。",
    },
    "loss.not_invariant": {
        "en": "Not shift invariant, so the plane is the slice x₂ = 0 (the star is where the current logits shifted to x₂ = 0 fall): {mappings}.",
        "zh": "不具平移不变性，平面图是切片 x₂ = 0（星号为当前 logits 平移到 x₂ = 0 后的位置）：{mappings}。",
    },
    "loss.none": {
        "en": "None of the selected mappings has a loss.",
        "zh": "选中的映射都没有损失函数。",
    },
    "loss.binary": {
        "en": "Binary slice",
        "zh": "二分类切片",
    },
    "loss.binary_title": {
        "en": "Loss of logits [t, 0] for class 0",
        "zh": "logits [t, 0] 对类别 0 的损失",
    },
    "loss.margin_axis": {
        "en": "t (logits [t, 0]; the margin x₀ − x₁ when shift invariant)",
        "zh": "t（logits [t, 0]；平移不变时即间隔 x₀ − x₁）",
    },
    "loss.hinge": {
        "en": "hinge max(0, 1 − t)",
        "zh": "合页损失 max(0, 1 − t)",
    },
    "loss.logistic": {
        "en": "logistic log(1 + e⁻ᵗ)",
        "zh": "logistic 损失 log(1 + e⁻ᵗ)",
    },
    "loss.huber": {
        "en": "modified Huber / 4",
        "zh": "修正 Huber / 4",
    },
    "loss.binary_k": {
        "en": "{mapping} is not drawn in this slice: it has two classes, and top-k needs k ≤ 2 there (k = {k} now). Set k to 1 or 2 in the mapping's parameters to draw it.",
        "zh": "{mapping} 未画在这个切片中：这里只有两个类别，top-k 要求 k ≤ 2（当前 k = {k}）。在映射参数中把 k 设为 1 或 2 即可画出。",
    },
    "loss.binary_tall": {
        "en": "{mapping}'s loss reaches {peak} at t = {at} (the scale s multiplies it), far above the others: the loss axis stops at {top}, and its curve leaves the plot above.",
        "zh": "{mapping} 的损失在 t = {at} 处达到 {peak}（尺度 s 把它放大），远高于其他损失：损失轴截止于 {top}，它的曲线从图的上方出界。",
    },
    "loss.binary_note": {
        "en": "Cross-entropy of [t, 0] is the logistic loss; the sparsemax loss is the modified Huber loss (divided by 4): 0 for t ≥ 1, (1 − t)²/4 for |t| < 1, −t for t ≤ −1.",
        "zh": "[t, 0] 的交叉熵就是 logistic 损失；sparsemax 损失就是修正 Huber 损失（除以 4）：t ≥ 1 时为 0，|t| < 1 时为 (1 − t)²/4，t ≤ −1 时为 −t。",
    },
    "loss.classic": {
        "en": "Entropy, prediction and loss for α ∈ {1, 1.5, 2, ∞}",
        "zh": "α ∈ {1, 1.5, 2, ∞} 的熵、预测与损失",
    },
    "loss.p_axis": {
        "en": "p",
        "zh": "p",
    },
    "loss.entropy_axis": {
        "en": "Tsallis entropy Hα([p, 1 − p])",
        "zh": "Tsallis 熵 Hα([p, 1 − p])",
    },
    "loss.prediction_axis": {
        "en": "entmaxα([t, 0])₀",
        "zh": "entmaxα([t, 0])₀",
    },
    "loss.panel_entropy": {
        "en": "entropy",
        "zh": "熵",
    },
    "loss.panel_prediction": {
        "en": "prediction",
        "zh": "预测",
    },
    "loss.panel_loss": {
        "en": "loss",
        "zh": "损失",
    },
    "loss.classic_note": {
        "en": "α = 1 softmax / logistic, α = 2 sparsemax / Huber, α = ∞ the limit: argmax and the perceptron loss max(0, −t).",
        "zh": "α = 1 为 softmax / logistic，α = 2 为 sparsemax / Huber，α = ∞ 为极限：argmax 与感知机损失 max(0, −t)。",
    },
    "q_loss.q": {
        "en": "When is the sparsemax loss of the target class exactly zero?",
        "zh": "目标类别的 sparsemax 损失何时恰好为零？",
    },
    "q_loss.c0": {
        "en": "never, like cross-entropy",
        "zh": "永远不会，与交叉熵一样",
    },
    "q_loss.c1": {
        "en": "when the target logit beats every other by at least 1",
        "zh": "当目标 logit 比其他每个都大至少 1 时",
    },
    "q_loss.c2": {
        "en": "whenever the target logit is the largest",
        "zh": "只要目标 logit 最大",
    },
    "q_loss.do": {
        "en": "Set the target's margin to exactly 1",
        "zh": "把目标的间隔设为恰好 1",
    },
    "q_loss.a": {
        "en": "Sparsemax is one-hot on t exactly when x_t − x_j ≥ 1 for every j ≠ t, and then its loss is 0 (a margin, as in the hinge loss). Now: margin x_t − max_j≠t x_j = {margin}, sparsemax loss = {sparsemax}, softmax cross-entropy = {softmax} (never exactly 0).",
        "zh": "当且仅当对每个 j ≠ t 都有 x_t − x_j ≥ 1 时，sparsemax 在 t 上是 one-hot，此时损失为 0（与合页损失一样是一种间隔）。当前：间隔 x_t − max_j≠t x_j = {margin}，sparsemax 损失 = {sparsemax}，softmax 交叉熵 = {softmax}（永远不会恰好为 0）。",
    },
    "loss.taylor_binary": {
        "en": "Taylor softmax does not keep the order of the logits (1 + t + t²/2 is smallest at t = −1): its loss of [t, 0] is largest at t ≈ {tpeak} ({peak}), not as t → −∞, and takes the same value {right} at t = 1 and at t ≈ {twin}. Left of the peak, gradient descent pushes the target logit further down. The curve is a function of t with x₁ = 0, not of the margin alone.",
        "zh": "Taylor softmax 不保持 logits 的大小顺序（1 + t + t²/2 在 t = −1 处最小）：它在 [t, 0] 上的损失在 t ≈ {tpeak} 处最大（{peak}），而不是在 t → −∞ 时最大；在 t = 1 与 t ≈ {twin} 处取同一个值 {right}。在峰值左侧，梯度下降反而把目标 logit 继续往下推。这条曲线是 x₁ = 0 时 t 的函数，而不只是间隔的函数。",
    },
}
