"""The words of the Losses page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.losses": {
        "en": "Losses",
        "zh": "损失函数",
    },
    "losses.intro": {
        "en": "Loss functions around the mappings: a surrogate that gives any mapping the gradient p − onehot, −pₜ as a smooth accuracy, why cross-entropy does not fit sparsemax, losses that reach exactly 0, and multi-label targets. Computed by probcore.losses.",
        "zh": "围绕这些映射的损失函数：让任意映射得到梯度 p − onehot 的替代损失、作为平滑准确率的 −pₜ、交叉熵为什么不适合 sparsemax、能恰好降到 0 的损失，以及多标签目标。数值由 probcore.losses 计算。",
    },
    "losses.surrogate": {
        "en": "The stop-gradient surrogate",
        "zh": "停止梯度的替代损失",
    },
    "losses.surrogate_text": {
        "en": "Cross-entropy's gradient is p − onehot(t), and so is the gradient of every Fenchel–Young loss (sparsemax loss, entmax loss). To train with any mapping p(x) through that gradient, without writing its loss, take the dot product of x with p − onehot(t) held constant (stop-gradient, `detach()`): the derivative of that surrogate is exactly p − onehot(t). Its value means nothing (it can be negative), so monitor another quantity; only its gradient is used. Below: the logits and target set above, each mapping with its default parameters.",
        "zh": "交叉熵的梯度是 p − onehot(t)，所有 Fenchel–Young 损失（sparsemax 损失、entmax 损失）的梯度也都是它。想用任意映射 p(x) 按这个梯度训练、又不想写出它的损失，可以把 p − onehot(t) 当作常数（停止梯度，`detach()`），再与 x 做内积：这个替代损失的导数恰好就是 p − onehot(t)。它的数值没有意义（可能为负），训练时应监控别的量，只用它的梯度。下图：上方设定的 logits 和目标类别，各映射取默认参数。",
    },
    "losses.surrogate_title": {
        "en": "Autograd gradient of the surrogate (bars) against p − onehot(t) (◆), target t = {target}",
        "zh": "替代损失的自动微分梯度（柱）与 p − onehot(t)（◆），目标 t = {target}",
    },
    "losses.p_minus_onehot": {
        "en": "{mapping}: p − onehot(t)",
        "zh": "{mapping}：p − onehot(t)",
    },
    "losses.gradient_axis": {
        "en": "∂L/∂xᵢ",
        "zh": "∂L/∂xᵢ",
    },
    "losses.surrogate_note": {
        "en": "Largest |autograd gradient − (p − onehot)| over the mappings shown: {worst}. The surrogate's values (meaningless, as said): {values}.",
        "zh": "所显示映射中 |自动微分梯度 − (p − onehot)| 的最大值：{worst}。替代损失的数值（如上所述，没有意义）：{values}。",
    },
    "losses.accuracy": {
        "en": "−pₜ: a smooth accuracy and its vanishing gradient",
        "zh": "−pₜ：平滑的准确率与梯度消失",
    },
    "losses.accuracy_text": {
        "en": "Accuracy counts argmax hits and has no gradient; pₜ is its smooth version, so −pₜ is a tempting loss (probcore.losses.neg_prob_loss). Its gradient in the target logit is −pₜ(1 − pₜ), which vanishes both when the example is learnt (pₜ → 1) and when it is badly wrong (pₜ → 0): a confidently misclassified example barely moves. Cross-entropy's gradient is pₜ − 1, close to −1 exactly there. That is why −pₜ suits fine-tuning a model that is already mostly right, not training from scratch. Logits [t, 0, …, 0] with n classes, target 0:",
        "zh": "准确率只统计 argmax 是否命中，没有梯度；pₜ 是它的平滑版本，于是 −pₜ 看上去是个诱人的损失（probcore.losses.neg_prob_loss）。它对目标 logit 的梯度是 −pₜ(1 − pₜ)：样本已经学会（pₜ → 1）时趋于 0，错得离谱（pₜ → 0）时也趋于 0——一个被自信地分错的样本几乎推不动。交叉熵的梯度是 pₜ − 1，恰恰在那里接近 −1。所以 −pₜ 适合微调一个大体已经正确的模型，而不适合从头训练。logits 为 [t, 0, …, 0]，共 n 类，目标为 0：",
    },
    "losses.n": {
        "en": "classes n",
        "zh": "类别数 n",
    },
    "losses.t_axis": {
        "en": "target logit t (logits [t, 0, …, 0], n = {n})",
        "zh": "目标 logit t（logits [t, 0, …, 0]，n = {n}）",
    },
    "losses.ce": {
        "en": "cross-entropy −log pₜ",
        "zh": "交叉熵 −log pₜ",
    },
    "losses.neg_p": {
        "en": "−pₜ",
        "zh": "−pₜ",
    },
    "losses.ce_grad": {
        "en": "|∂(−log pₜ)/∂t| = 1 − pₜ",
        "zh": "|∂(−log pₜ)/∂t| = 1 − pₜ",
    },
    "losses.neg_p_grad": {
        "en": "|∂(−pₜ)/∂t| = pₜ(1 − pₜ)",
        "zh": "|∂(−pₜ)/∂t| = pₜ(1 − pₜ)",
    },
    "losses.grad_abs_axis": {
        "en": "|gradient| (log scale)",
        "zh": "|梯度|（对数坐标）",
    },
    "losses.accuracy_title": {
        "en": "Loss against the target logit (n = {n})",
        "zh": "损失随目标 logit 的变化（n = {n}）",
    },
    "losses.accuracy_grad_title": {
        "en": "Size of the gradient in the target logit",
        "zh": "对目标 logit 的梯度大小",
    },
    "losses.accuracy_note": {
        "en": "At t = {t}: cross-entropy's gradient {ce}, −pₜ's {neg}, {ratio} times smaller. Both come from autograd through probcore.losses.",
        "zh": "在 t = {t} 处：交叉熵的梯度为 {ce}，−pₜ 的梯度为 {neg}，只有其 1/{ratio}。两者都由自动微分经 probcore.losses 求得。",
    },
    "losses.sparse_ce": {
        "en": "Why cross-entropy does not fit sparsemax",
        "zh": "交叉熵为什么不适合 sparsemax",
    },
    "losses.sparse_ce_text": {
        "en": "Sparsemax gives the target exactly pₜ = 0 whenever its logit is far enough below the others, and −log 0 = ∞: cross-entropy on sparsemax outputs is infinite there, with no usable gradient. Adding a small ε, −log((pₜ + ε)/(1 + nε)) (probcore.losses.smoothed_cross_entropy), makes it finite, but the cure is poor: while pₜ = 0 the loss is flat (zero gradient, nothing to learn from), and it is not convex in the logits. The way out is to start from the gradient instead: asking for the gradient p − onehot(t), as cross-entropy has with softmax, gives the sparsemax loss, convex and zero once the target wins by 1.",
        "zh": "只要目标的 logit 比其他类低得足够多，sparsemax 就给目标恰好 pₜ = 0，而 −log 0 = ∞：在 sparsemax 输出上用交叉熵，那里就是无穷大，也没有可用的梯度。加一个小的 ε，写成 −log((pₜ + ε)/(1 + nε))（probcore.losses.smoothed_cross_entropy），损失变成有限值，但治标不治本：pₜ = 0 时损失是平的（梯度为 0，学不到东西），而且它关于 logits 不是凸的。出路是从梯度出发：要求梯度像 softmax 配交叉熵那样等于 p − onehot(t)，得到的就是 sparsemax 损失——它是凸的，目标领先 1 之后就为 0。",
    },
    "losses.log_eps": {
        "en": "log₁₀ ε",
        "zh": "log₁₀ ε",
    },
    "losses.plain_ce": {
        "en": "−log pₜ (∞ where pₜ = 0, not drawn)",
        "zh": "−log pₜ（pₜ = 0 处为 ∞，不画出）",
    },
    "losses.smoothed": {
        "en": "−log((pₜ + ε)/(1 + nε)), ε = {eps}",
        "zh": "−log((pₜ + ε)/(1 + nε))，ε = {eps}",
    },
    "losses.sparsemax_loss": {
        "en": "sparsemax loss",
        "zh": "sparsemax 损失",
    },
    "losses.sparse_ce_title": {
        "en": "Losses of sparsemax([t, 0, …, 0]), n = {n}, target 0",
        "zh": "sparsemax([t, 0, …, 0]) 的各损失，n = {n}，目标为 0",
    },
    "losses.grad_axis": {
        "en": "∂L/∂t",
        "zh": "∂L/∂t",
    },
    "losses.sparse_grad_title": {
        "en": "Gradient in the target logit",
        "zh": "对目标 logit 的梯度",
    },
    "losses.sparse_ce_note": {
        "en": "pₜ = 0 up to t = {dead} on this grid: there the smoothed loss is the constant log((1 + nε)/ε) = {flat}, its gradient 0, while the sparsemax loss still has gradient −1. Smallest second difference along t: smoothed {smoothed} (negative: not convex), sparsemax loss {sparsemax} (zero up to rounding: convex).",
        "zh": "在这个网格上直到 t = {dead} 都有 pₜ = 0：那里平滑损失是常数 log((1 + nε)/ε) = {flat}，梯度为 0，而 sparsemax 损失的梯度仍为 −1。沿 t 的最小二阶差分：平滑损失 {smoothed}（为负：非凸），sparsemax 损失 {sparsemax}（在舍入误差内为 0：凸）。",
    },
    "losses.zero": {
        "en": "Sparse losses reach exactly 0",
        "zh": "稀疏损失能恰好降到 0",
    },
    "losses.zero_text": {
        "en": "Cross-entropy is never 0: softmax never gives pₜ = 1, so training keeps widening the gap (the over-confidence of the page “Why sparse”). The α-entmax loss (a Fenchel–Young loss, probcore.losses.entmax_loss) is 0 exactly when α-entmax puts all its mass on the target, and for logits [t, 0] that happens as soon as (α − 1)·t ≥ 1: the gap needs to reach 1/(α − 1), no more. Past that point the example contributes nothing; like a hinge loss with margin 1/(α − 1).",
        "zh": "交叉熵永远不为 0：softmax 从不给出 pₜ = 1，训练便一直拉大差距（见“为何稀疏”页的过度自信）。α-entmax 损失（一种 Fenchel–Young 损失，probcore.losses.entmax_loss）恰在 α-entmax 把全部概率质量放在目标上时为 0；对 logits [t, 0] 而言，只要 (α − 1)·t ≥ 1 就会如此：差距达到 1/(α − 1) 即可，不必更多。过了这一点，这个样本不再有任何贡献，就像间隔为 1/(α − 1) 的合页损失。",
    },
    "losses.alpha": {
        "en": "α",
        "zh": "α",
    },
    "losses.alpha_curve": {
        "en": "α = {alpha}",
        "zh": "α = {alpha}",
    },
    "losses.gap_axis": {
        "en": "gap t (logits [t, 0], target 0)",
        "zh": "差距 t（logits [t, 0]，目标为 0）",
    },
    "losses.zero_title": {
        "en": "α-entmax loss of [t, 0]: exactly 0 from t = 1/(α − 1)",
        "zh": "[t, 0] 的 α-entmax 损失：从 t = 1/(α − 1) 起恰为 0",
    },
    "losses.zero_note_beyond": {
        "en": "α = {alpha}: 1/(α − 1) = {bound} lies beyond this grid (t ≤ {end}), so the loss stays above 0 on the whole grid (smallest value here: {least}); it is exactly 0 from t = 1/(α − 1) on. Cross-entropy (α = 1) never reaches 0 on the grid: its smallest value there is {ce}, at t = {end}.",
        "zh": "α = {alpha}：1/(α − 1) = {bound} 超出了这个网格（t ≤ {end}），所以损失在整个网格上都大于 0（这里的最小值为 {least}）；从 t = 1/(α − 1) 起它才恰为 0。交叉熵（α = 1）在整个网格上都不为 0：网格上的最小值为 {ce}，在 t = {end} 处。",
    },
    "losses.zero_note": {
        "en": "α = {alpha}: the loss is exactly 0 from t = {reached} on this grid (step {step}); 1/(α − 1) = {bound}. Cross-entropy (α = 1) never reaches 0 on the grid: its smallest value there is {ce}, at t = {end}.",
        "zh": "α = {alpha}：在这个网格上（步长 {step}）损失从 t = {reached} 起恰为 0；1/(α − 1) = {bound}。交叉熵（α = 1）在整个网格上都不为 0：网格上的最小值为 {ce}，在 t = {end} 处。",
    },
    "losses.multilabel": {
        "en": "Sparsemax for multi-label targets",
        "zh": "用 sparsemax 做多标签分类",
    },
    "losses.multilabel_text": {
        "en": "With several correct labels, take as target the uniform distribution q on them. Sparsemax can equal q exactly (softmax cannot: it never gives zeros), so its support is a predicted label set. The sparsemax loss extends to a distribution q; it is ≥ 0, exactly 0 when sparsemax(z) = q, and its gradient is sparsemax(z) − q. Below: the logits set above, true labels the first m classes; gradient descent z ← z − 0.5 (p − q) from them.",
        "zh": "有多个正确标签时，取这些标签上的均匀分布 q 作为目标。sparsemax 可以恰好等于 q（softmax 不行：它从不给出 0），所以它的支撑集就是预测的标签集合。sparsemax 损失可以推广到分布 q：它 ≥ 0，当 sparsemax(z) = q 时恰为 0，梯度为 sparsemax(z) − q。下图：上方设定的 logits，真实标签为前 m 个类别；从它们出发做梯度下降 z ← z − 0.5 (p − q)。",
    },
    "losses.labels": {
        "en": "true labels m (classes 0 … m − 1)",
        "zh": "真实标签数 m（类别 0 … m − 1）",
    },
    "losses.steps": {
        "en": "gradient steps",
        "zh": "梯度步数",
    },
    "losses.after": {
        "en": "sparsemax after {steps} steps",
        "zh": "{steps} 步之后的 sparsemax",
    },
    "losses.q": {
        "en": "target q (uniform on {m} labels)",
        "zh": "目标 q（{m} 个标签上的均匀分布）",
    },
    "losses.multilabel_title": {
        "en": "Sparsemax of the logits and after training, against q (m = {m})",
        "zh": "logits 的 sparsemax 与训练之后的结果，对照 q（m = {m}）",
    },
    "losses.multilabel_loss": {
        "en": "multi-label sparsemax loss",
        "zh": "多标签 sparsemax 损失",
    },
    "losses.step_axis": {
        "en": "gradient step",
        "zh": "梯度步",
    },
    "losses.training_title": {
        "en": "Loss during gradient descent",
        "zh": "梯度下降过程中的损失",
    },
    "losses.multilabel_note": {
        "en": "At the logits set above: loss {loss}, {support} predicted labels (classes with p > 10⁻⁶) against {m} true labels. After {steps} steps: loss {final}, {final_support} predicted labels.",
        "zh": "在上方设定的 logits 处：损失 {loss}，预测标签 {support} 个（p > 10⁻⁶ 的类别），真实标签 {m} 个。{steps} 步之后：损失 {final}，预测标签 {final_support} 个。",
    },
    "losses.multilabel_tiny": {
        "en": "After these steps {count} more class(es) keep a p > 0 no larger than {largest}: still in sparsemax's support, not counted as predicted labels. Once every true label is in the support, each step of z ← z − 0.5 (p − q) sets p to (p + q)/2 there: such a p halves at every step and never becomes exactly 0 in exact arithmetic.",
        "zh": "这些步之后还有 {count} 个类别保留 p > 0，最大为 {largest}：仍在 sparsemax 的支撑集内，但不算作预测标签。一旦所有真实标签都在支撑集内，z ← z − 0.5 (p − q) 的每一步都把支撑集上的 p 变为 (p + q)/2：这样的 p 每步减半，在精确算术下永远不会恰好变为 0。",
    },
    "losses.derivation": {
        "en": "Where the sparsemax loss comes from",
        "zh": "sparsemax 损失从何而来",
    },
    "losses.derivation_text": {
        "en": "Ask for the loss whose gradient is p − eₜ, as cross-entropy's is for softmax, and integrate. On the support S, pᵢ = xᵢ − λ with λ = (Σᵢ∈S xᵢ − 1)/|S|, so ∂λ/∂xⱼ = 1/|S| for j in S and 0 outside. L = ½ − xₜ + ½ Σᵢ∈S (xᵢ² − λ²) then has ∂L/∂xⱼ = xⱼ − λ − [j = t] for j in S and −[j = t] outside: p − eₜ. The constant ½ makes a perfect prediction cost 0: when p is one-hot on t, S = {t} and λ = xₜ − 1, so −xₜ + ½xₜ² − ½(xₜ − 1)² = −½.",
        "zh": "要找梯度为 p − eₜ 的损失（正如交叉熵之于 softmax），对梯度积分即可。在支撑集 S 上 pᵢ = xᵢ − λ，其中 λ = (Σᵢ∈S xᵢ − 1)/|S|，所以 j 在 S 中时 ∂λ/∂xⱼ = 1/|S|，在 S 之外为 0。于是 L = ½ − xₜ + ½ Σᵢ∈S (xᵢ² − λ²) 对 S 中的 j 有 ∂L/∂xⱼ = xⱼ − λ − [j = t]，对 S 之外的 j 为 −[j = t]：正是 p − eₜ。常数 ½ 使完美预测的损失为 0：p 是 t 上的 one-hot 时，S = {t}，λ = xₜ − 1，于是 −xₜ + ½xₜ² − ½(xₜ − 1)² = −½。",
    },
    "losses.derivation_note": {
        "en": "At the logits above, target {target}: λ = {lam}, support {{{support}}}; the formula gives {written}, probcore.losses.sparsemax_loss {lib}. ∂λ/∂x by central differences: ({dlam}); autograd's gradient equals p − eₜ to {gdiff}. At x = (10, 0, …, 0), t = 0: λ = {plam} and −xₜ + ½ Σᵢ∈S (xᵢ² − λ²) = {tail}.",
        "zh": "在上方的 logits 处，目标类别 {target}：λ = {lam}，支撑集 {{{support}}}；公式给出 {written}，probcore.losses.sparsemax_loss 给出 {lib}。用中心差分得到的 ∂λ/∂x：({dlam})；自动微分的梯度与 p − eₜ 相差 {gdiff}。在 x = (10, 0, …, 0)、t = 0 处：λ = {plam}，−xₜ + ½ Σᵢ∈S (xᵢ² − λ²) = {tail}。",
    },
    "losses.fy": {
        "en": "The α-entmax loss written out",
        "zh": "α-entmax 损失的展开式",
    },
    "losses.fy_text": {
        "en": "The entmax loss is a Fenchel–Young loss: with p = α-entmax(z) and the Tsallis entropy H_α(p) = (1 − Σᵢ pᵢ^α)/(α(α − 1)), L(z; t) = ⟨p − eₜ, z⟩ + H_α(p). Its gradient is p − eₜ; it is ≥ 0, and 0 exactly when p = eₜ. α → 1 gives Shannon's entropy and cross-entropy; α = 2 gives the Tsallis entropy (1 − Σ pᵢ²)/2 and the sparsemax loss above.",
        "zh": "entmax 损失是一个 Fenchel–Young 损失：取 p = α-entmax(z) 与 Tsallis 熵 H_α(p) = (1 − Σᵢ pᵢ^α)/(α(α − 1))，则 L(z; t) = ⟨p − eₜ, z⟩ + H_α(p)。它的梯度是 p − eₜ；它 ≥ 0，且恰在 p = eₜ 时为 0。α → 1 得到 Shannon 熵与交叉熵；α = 2 得到 Tsallis 熵 (1 − Σ pᵢ²)/2 与上面的 sparsemax 损失。",
    },
    "losses.fy_note": {
        "en": "At the logits above, target {target}: the written-out loss and probcore's differ by at most {diff} over these α.",
        "zh": "在上方的 logits 处，目标类别 {target}：展开式与 probcore 的结果在这些 α 上最多相差 {diff}。",
    },
}
