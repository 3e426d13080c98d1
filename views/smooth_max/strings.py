"""The words of the Smooth max page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.smooth_max": {
        "en": "Smooth max & properties",
        "zh": "光滑最大值与性质",
    },
    "smooth.intro": {
        "en": "Softmax is the gradient of a smooth maximum. From there: which properties a mapping should have (tested live), softmax with another base, and why softmax saturates unless its scores are scaled.",
        "zh": "softmax 是一个光滑最大值的梯度。由此出发：映射应当具备哪些性质（现场检验）、换一个底数的 softmax，以及为什么分数不缩放时 softmax 会饱和。",
    },
    "smooth.lse": {
        "en": "logsumexp, the smooth max; softmax, the smooth argmax",
        "zh": "logsumexp 是光滑的 max；softmax 是光滑的 argmax",
    },
    "smooth.lse_text": {
        "en": "max x has a kink wherever the two largest logits tie (a tie below the maximum, as in (3, 1, 1), leaves it smooth); T·logsumexp(x/T) is smooth and lies between max x and max x + T log n, so it tends to max x as T → 0. Its gradient is softmax(x/T): a smooth version of the gradient of max, which is the one-hot vector of the argmax. That is the precise sense in which softmax is a “smooth argmax” (it is not a smooth max: its values are probabilities, not a maximum). Below: the logits set above, probcore.smooth_max and autograd.",
        "zh": "max x 在最大的两个 logit 相等处有折点（最大值以下的相等，如 (3, 1, 1)，不影响光滑）；T·logsumexp(x/T) 处处光滑，且夹在 max x 与 max x + T log n 之间，所以 T → 0 时趋于 max x。它的梯度是 softmax(x/T)：max 的梯度是 argmax 的 one-hot 向量，softmax 就是它的光滑版本。softmax 被称为“光滑的 argmax”正是这个意思（它不是光滑的 max：它的值是概率，而不是最大值）。下图：上方设定的 logits，由 probcore.smooth_max 与自动微分计算。",
    },
    "smooth.log_T": {
        "en": "log₁₀ T",
        "zh": "log₁₀ T",
    },
    "smooth.lse_curve": {
        "en": "T·logsumexp(x/T)",
        "zh": "T·logsumexp(x/T)",
    },
    "smooth.max_line": {
        "en": "max x",
        "zh": "max x",
    },
    "smooth.upper": {
        "en": "max x + T log n",
        "zh": "max x + T log n",
    },
    "smooth.value_axis": {
        "en": "value",
        "zh": "数值",
    },
    "smooth.lse_title": {
        "en": "The smooth max against the temperature",
        "zh": "光滑最大值随温度的变化",
    },
    "smooth.grad": {
        "en": "autograd ∇ of T·logsumexp(x/T)",
        "zh": "T·logsumexp(x/T) 的自动微分梯度",
    },
    "smooth.softmax": {
        "en": "softmax(x/T)",
        "zh": "softmax(x/T)",
    },
    "smooth.grad_title": {
        "en": "Gradient of the smooth max = softmax, T = {T}",
        "zh": "光滑最大值的梯度 = softmax，T = {T}",
    },
    "smooth.lse_note": {
        "en": "At T = {T}: T·logsumexp(x/T) = {value}, max x = {max}, the excess {gap} is within T log n = {bound}. Largest |gradient − softmax(x/T)| = {diff}.",
        "zh": "T = {T} 时：T·logsumexp(x/T) = {value}，max x = {max}，超出量 {gap} 不超过 T log n = {bound}。|梯度 − softmax(x/T)| 的最大值为 {diff}。",
    },
    "smooth.properties": {
        "en": "Monotonicity and shift invariance, tested",
        "zh": "单调性与平移不变性：实测",
    },
    "smooth.properties_text": {
        "en": "Two properties a mapping from scores to probabilities is expected to have. **Monotonicity**: a larger logit never gets a smaller probability (xᵢ > xⱼ ⇒ pᵢ ≥ pⱼ). **Shift invariance**: adding the same number to every logit changes nothing, f(x + c) = f(x), so only differences matter. Beyond the formulas, the test below draws random logit vectors, applies each mapping with its default parameters (AM-softmax: target class 0) and counts the draws where a property fails.",
        "zh": "从分数到概率的映射通常应具备两条性质。**单调性**：logit 越大，概率不会越小（xᵢ > xⱼ ⇒ pᵢ ≥ pⱼ）。**平移不变性**：所有 logit 加同一个数，结果不变，f(x + c) = f(x)，所以只有差值起作用。下面不只看公式，还随机抽取 logit 向量，让每个映射取默认参数（AM-softmax 的目标类别为 0）作用其上，统计性质不成立的抽样所占比例。",
    },
    "smooth.n": {
        "en": "logits per draw n",
        "zh": "每次抽样的 logit 个数 n",
    },
    "smooth.draws": {
        "en": "random draws",
        "zh": "随机抽样次数",
    },
    "smooth.shift": {
        "en": "shift c",
        "zh": "平移量 c",
    },
    "smooth.seed": {
        "en": "seed",
        "zh": "随机种子",
    },
    "smooth.order_share": {
        "en": "share of draws where the order is broken",
        "zh": "顺序被打破的抽样比例",
    },
    "smooth.shift_share": {
        "en": "shift changes p (1 = yes)",
        "zh": "平移改变了 p（1 = 是）",
    },
    "smooth.share_axis": {
        "en": "share of draws",
        "zh": "抽样比例",
    },
    "smooth.properties_title": {
        "en": "{draws} draws x ~ N(0, 2²), n = {n}, shift c = {shift}",
        "zh": "{draws} 次抽样 x ~ N(0, 2²)，n = {n}，平移 c = {shift}",
    },
    "smooth.col_order": {
        "en": "order broken (share of draws)",
        "zh": "顺序被打破（抽样比例）",
    },
    "smooth.col_shift": {
        "en": "max |f(x + c) − f(x)|",
        "zh": "max |f(x + c) − f(x)|",
    },
    "smooth.taylor_example": {
        "en": "Taylor softmax breaks the order: at x = {x}, p = {p}, x{i} = {xi} > x{j} = {xj} but p{i} = {pi} < p{j} = {pj}. Its f(x) = 1 + x + x²/2 falls for x < −1, so a very negative logit gets more weight than a moderately negative one; and f depends on x itself, so it is not shift invariant either.",
        "zh": "Taylor softmax 打破了顺序：在 x = {x} 处，p = {p}，x{i} = {xi} > x{j} = {xj}，但 p{i} = {pi} < p{j} = {pj}。它的 f(x) = 1 + x + x²/2 在 x < −1 时递减，所以很负的 logit 反而比稍负的 logit 得到更大的权重；而且 f 依赖 x 本身，所以它也不具平移不变性。",
    },
    "smooth.properties_note": {
        "en": "AM-softmax breaks the order on purpose: the margin lowers the target's logit. Sparse mappings give ties at 0 (pᵢ = pⱼ = 0 with xᵢ > xⱼ), which monotonicity in the weak sense allows.",
        "zh": "AM-softmax 是有意打破顺序的：间隔压低了目标类的 logit。稀疏映射会在 0 处出现并列（xᵢ > xⱼ 而 pᵢ = pⱼ = 0），这在弱单调的意义下是允许的。",
    },
    "smooth.base": {
        "en": "Softmax with base b: softmin and the Boltzmann distribution",
        "zh": "以 b 为底的 softmax：softmin 与玻尔兹曼分布",
    },
    "smooth.base_text": {
        "en": "Softmax uses base e; any base b > 0 gives a distribution, pᵢ ∝ bˣⁱ, and it is softmax(βx) with β = ln b, the inverse temperature. b > 1 (β > 0) favours large logits, b = 1 (β = 0) is uniform, b < 1 (β < 0) favours small logits: that is softmin. In physics the same formula with x = −E (energies) and β = 1/(k_B T) is the Boltzmann distribution: low energies are likely, and the temperature sets how strongly.",
        "zh": "softmax 以 e 为底；任何底数 b > 0 都给出一个分布 pᵢ ∝ bˣⁱ，它就是 softmax(βx)，其中 β = ln b 为逆温度。b > 1（β > 0）偏向大的 logit，b = 1（β = 0）为均匀分布，b < 1（β < 0）偏向小的 logit：这就是 softmin。物理中同一个公式取 x = −E（能量）、β = 1/(k_B T)，就是玻尔兹曼分布：能量低的状态更可能出现，温度决定偏向的强弱。",
    },
    "smooth.beta": {
        "en": "β = ln b",
        "zh": "β = ln b",
    },
    "smooth.beta_title": {
        "en": "softmax(βx) against β (left of 0: softmin)",
        "zh": "softmax(βx) 随 β 的变化（0 的左边为 softmin）",
    },
    "smooth.base_label": {
        "en": "base b = {b} (β = {beta})",
        "zh": "底数 b = {b}（β = {beta}）",
    },
    "smooth.base_bars": {
        "en": "softmax(βx), β = {beta}",
        "zh": "softmax(βx)，β = {beta}",
    },
    "smooth.base_note": {
        "en": "β = {beta}, base b = e^β = {b}: {kind}; the most likely class is {top}. Computed by probcore.softmax(x, beta=β).",
        "zh": "β = {beta}，底数 b = e^β = {b}：{kind}；概率最大的类别为 {top}。由 probcore.softmax(x, beta=β) 计算。",
    },
    "smooth.kind_max": {
        "en": "a soft argmax (large logits favoured)",
        "zh": "软 argmax（偏向大的 logit）",
    },
    "smooth.kind_min": {
        "en": "softmin (small logits favoured)",
        "zh": "softmin（偏向小的 logit）",
    },
    "smooth.base_note_uniform": {
        "en": "β = 0, base b = e^β = 1: uniform, every class gets p = 1/n = {p}, so no class is the most likely. Computed by probcore.softmax(x, beta=β).",
        "zh": "β = 0，底数 b = e^β = 1：均匀分布，每个类别都得到 p = 1/n = {p}，没有哪个类别概率最大。由 probcore.softmax(x, beta=β) 计算。",
    },
    "smooth.saturation": {
        "en": "Saturation, and why attention divides by √d",
        "zh": "饱和，以及注意力为什么要除以 √d",
    },
    "smooth.saturation_text": {
        "en": "Half the L1 norm of softmax's Jacobian is 1 − Σ pᵢ²: it measures how much p can still move. As p approaches one-hot it goes to 0, and so do the gradients through the softmax: it saturates. In attention the scores are dot products q·k of d-dimensional vectors; with independent N(0, 1) entries their variance is d, so the scores spread out like √d and softmax saturates as d grows. Dividing by √d restores variance 1 whatever d is. Below: {L} keys, {m} queries, N(0, 1) entries.",
        "zh": "softmax 雅可比矩阵 L1 范数的一半等于 1 − Σ pᵢ²：它衡量 p 还能移动多少。p 接近 one-hot 时它趋于 0，经过 softmax 的梯度也随之趋于 0：softmax 饱和了。注意力中的分数是 d 维向量的内积 q·k；各分量独立服从 N(0, 1) 时其方差为 d，分数的散布随 √d 增大，softmax 随 d 增大而饱和。除以 √d 后，无论 d 多大，方差都恢复为 1。下图：{L} 个键、{m} 个查询，各分量服从 N(0, 1)。",
    },
    "smooth.log2_d": {
        "en": "log₂ d",
        "zh": "log₂ d",
    },
    "smooth.raw": {
        "en": "softmax(q·k)",
        "zh": "softmax(q·k)",
    },
    "smooth.scaled": {
        "en": "softmax(q·k/√d)",
        "zh": "softmax(q·k/√d)",
    },
    "smooth.uniform": {
        "en": "uniform over L = {L} keys: 1 − 1/L",
        "zh": "L = {L} 个键上的均匀分布：1 − 1/L",
    },
    "smooth.d_axis": {
        "en": "dimension d",
        "zh": "维度 d",
    },
    "smooth.sat_axis": {
        "en": "mean 1 − Σ p²",
        "zh": "1 − Σ p² 的平均值",
    },
    "smooth.sat_title": {
        "en": "Mean 1 − Σ p² of the attention weights ({L} keys, {m} queries)",
        "zh": "注意力权重的 1 − Σ p² 平均值（{L} 个键，{m} 个查询）",
    },
    "smooth.sat_note": {
        "en": "d = {d}: the scores q·k have standard deviation {sd} (√d = {sqrt}); mean 1 − Σ p² is {raw} without scaling and {scaled} with 1/√d.",
        "zh": "d = {d}：分数 q·k 的标准差为 {sd}（√d = {sqrt}）；不缩放时 1 − Σ p² 的平均值为 {raw}，除以 √d 后为 {scaled}。",
    },
    "smooth.readings": {
        "en": "Four readings of softmax",
        "zh": "softmax 的四种解读",
    },
    "smooth.readings_text": {
        "en": "**An exponential family**: pᵢ = exp(xᵢ − A(x)) with the log-partition function A(x) = log Σⱼ exp(xⱼ), whose gradient is p. **Maximum entropy**: among all distributions with the same mean logit Σ pᵢ xᵢ, softmax has the largest entropy; with features in place of x, the conditional maximum-entropy model is the same model as softmax regression. **A base or smoothing factor β**: softmax(βx) with β > 0 spreads or sharpens p; retrieval models such as DSSM put such a factor on cosine similarities, which lie in [−1, 1], so that β caps the ratio of two probabilities at e^(2β). β < 0 gives softmin, as in the Boltzmann distribution of physics (and Boltzmann machines). **Soft addressing**: attention reads a memory of values vᵢ with the weights p of the keys' similarities, r = Σ pᵢ vᵢ; argmax would read the one most similar slot, and has no gradient.",
        "zh": "**指数族**：pᵢ = exp(xᵢ − A(x))，对数配分函数 A(x) = log Σⱼ exp(xⱼ) 的梯度就是 p。**最大熵**：在平均 logit Σ pᵢ xᵢ 相同的所有分布中，softmax 的熵最大；把 x 换成特征，条件最大熵模型与 softmax 回归就是同一个模型。**底数或平滑因子 β**：β > 0 时 softmax(βx) 让 p 变平或变尖；DSSM 等检索模型在余弦相似度上加这样一个因子，余弦在 [−1, 1] 内，所以 β 把两个概率之比限制在 e^(2β) 以内。β < 0 给出 softmin，如物理中的玻尔兹曼分布（以及玻尔兹曼机）。**软寻址**：注意力用键的相似度得到的权重 p 读取值 vᵢ 组成的记忆，r = Σ pᵢ vᵢ；argmax 只读最相似的一个位置，而且没有梯度。",
    },
    "smooth.readings_note": {
        "en": "At the logits above: A(x) = {A}, and its autograd gradient equals softmax(x) to {diff}; mean logit Σ pᵢ xᵢ = {mean}, entropy H(p) = {H}. For cosines 1 and −1: p₀/p₁ = {r1} at β = 1 and {r10} at β = 10 (e^(2β)). Reading values vᵢ = i: softmax reads {soft}, argmax reads slot {hard}.",
        "zh": "在上方的 logits 处：A(x) = {A}，它的自动微分梯度与 softmax(x) 相差 {diff}；平均 logit Σ pᵢ xᵢ = {mean}，熵 H(p) = {H}。余弦为 1 和 −1 时：β = 1 下 p₀/p₁ = {r1}，β = 10 下为 {r10}（e^(2β)）。读取值 vᵢ = i：softmax 读出 {soft}，argmax 读出位置 {hard}。",
    },
    "smooth.readings_maxent": {
        "en": "{draws} random distributions with the same total and the same mean logit all have less entropy (the largest: {best}).",
        "zh": "{draws} 个总和与平均 logit 都相同的随机分布，熵都更小（最大的为 {best}）。",
    },
    "smooth.collision": {
        "en": "1 − Σ pᵢ² and the collision entropy",
        "zh": "1 − Σ pᵢ² 与碰撞熵",
    },
    "smooth.collision_text": {
        "en": "Σ pᵢ² is the chance that two independent draws from p give the same class (a collision). Its negative log, H₂(p) = −log Σ pᵢ², is the Rényi entropy of order 2, the collision entropy; it never exceeds Shannon's entropy H(p). So the saturation measure above, 1 − Σ pᵢ² = 1 − e^(−H₂(p)), is an entropy in disguise: it goes to 0 exactly when p becomes one-hot. (It is also twice the Tsallis entropy of order 2 as the entmax pages normalise it, (1 − Σ pᵢ²)/2.)",
        "zh": "Σ pᵢ² 是从 p 中独立抽两次得到同一类别（碰撞）的概率。它的负对数 H₂(p) = −log Σ pᵢ² 是 2 阶 Rényi 熵，即碰撞熵；它永远不超过 Shannon 熵 H(p)。所以上面的饱和度 1 − Σ pᵢ² = 1 − e^(−H₂(p)) 其实是一个熵：恰在 p 变成 one-hot 时为 0。（它也是 entmax 各页所用归一化下 2 阶 Tsallis 熵 (1 − Σ pᵢ²)/2 的两倍。）",
    },
    "smooth.collision_note": {
        "en": "Softmax of the logits above: Σ pᵢ² = {sq}; {pairs} pairs of independent draws collide with frequency {freq}. H₂ = {h2} ≤ H = {H}; 1 − Σ pᵢ² = {one}.",
        "zh": "上方 logits 的 softmax：Σ pᵢ² = {sq}；{pairs} 对独立抽样的碰撞频率为 {freq}。H₂ = {h2} ≤ H = {H}；1 − Σ pᵢ² = {one}。",
    },
}
