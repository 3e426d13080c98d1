"""The words of the Sparse from exp page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.sparse_from_exp": {
        "en": "Sparsemax from scratch",
        "zh": "从头推导 sparsemax",
    },
    "sfe.intro": {
        "en": "Where sparsemax and entmax come from: replace exp by a power of a ReLU, and solve for the threshold with the KKT conditions, step by step on the logits set above.",
        "zh": "sparsemax 与 entmax 从何而来：把 exp 换成 ReLU 的幂，再用 KKT 条件解出阈值——在上方设定的 logits 上逐步演示。",
    },
    "sfe.approx": {
        "en": "From exp(x) to relu(1 + βx)^(1/β)",
        "zh": "从 exp(x) 到 relu(1 + βx)^(1/β)",
    },
    "sfe.approx_text": {
        "en": "exp(x) is the limit of (1 + βx)^(1/β) as β → 0. Keep β > 0 and cut the base at 0: relu(1 + βx)^(1/β) follows exp near x = 0 but is exactly 0 for x ≤ −1/β. Put it in place of exp in softmax and renormalise with a threshold λ instead of a division: pᵢ = relu(βxᵢ − λ)^(1/β), λ chosen so that Σ p = 1. That is α-entmax with α = 1 + β: β = 1 gives sparsemax (a plain ReLU), β = ½ gives 1.5-entmax (a squared ReLU), β → 0 gives softmax back. Every class whose logit lies more than 1/β below the largest gets exactly 0.",
        "zh": "exp(x) 是 (1 + βx)^(1/β) 在 β → 0 时的极限。保持 β > 0，并把底数在 0 处截断：relu(1 + βx)^(1/β) 在 x = 0 附近贴近 exp，而在 x ≤ −1/β 时恰为 0。用它替换 softmax 中的 exp，并用阈值 λ 而不是除法来归一化：pᵢ = relu(βxᵢ − λ)^(1/β)，λ 的取值使 Σ p = 1。这就是 α = 1 + β 的 α-entmax：β = 1 得到 sparsemax（普通 ReLU），β = ½ 得到 1.5-entmax（ReLU 的平方），β → 0 又回到 softmax。logit 比最大者低超过 1/β 的类别，概率恰为 0。",
    },
    "sfe.beta": {
        "en": "β (α = 1 + β)",
        "zh": "β（α = 1 + β）",
    },
    "sfe.relu_curve": {
        "en": "relu(1 + βx)^(1/β), β = {beta}",
        "zh": "relu(1 + βx)^(1/β)，β = {beta}",
    },
    "sfe.value_axis": {
        "en": "value",
        "zh": "数值",
    },
    "sfe.approx_title": {
        "en": "exp(x) and its ReLU-power approximations",
        "zh": "exp(x) 及其 ReLU 幂近似",
    },
    "sfe.by_hand": {
        "en": "relu(βx − λ)^(1/β), by hand (α = {alpha})",
        "zh": "relu(βx − λ)^(1/β)，手工计算（α = {alpha}）",
    },
    "sfe.probcore": {
        "en": "probcore.entmax, α = {alpha}",
        "zh": "probcore.entmax，α = {alpha}",
    },
    "sfe.entmax_title": {
        "en": "softmax against the ReLU-power version (α = {alpha})",
        "zh": "softmax 与 ReLU 幂版本的对比（α = {alpha}）",
    },
    "sfe.approx_note": {
        "en": "β = {beta}: the ReLU power is 0 for x ≤ {cut}. With λ = {lam} from probcore's threshold, Σᵢ relu(βxᵢ − λ)^(1/β) = {total}, and it equals probcore.entmax(x, α = {alpha}) to {diff}; {zeros} of the {n} classes are exactly 0.",
        "zh": "β = {beta}：x ≤ {cut} 时 ReLU 幂为 0。取 probcore 阈值给出的 λ = {lam}，Σᵢ relu(βxᵢ − λ)^(1/β) = {total}，与 probcore.entmax(x, α = {alpha}) 的差不超过 {diff}；{n} 个类别中有 {zeros} 个恰为 0。",
    },
    "sfe.kkt": {
        "en": "The threshold from the KKT conditions",
        "zh": "由 KKT 条件求阈值",
    },
    "sfe.kkt_problem": {
        "en": "**1. The problem.** Sparsemax is the Euclidean projection of the logits z onto the simplex: the closest probability vector.",
        "zh": "**1. 问题。** sparsemax 是 logits z 到单纯形上的欧几里得投影：离 z 最近的概率向量。",
    },
    "sfe.kkt_lagrangian": {
        "en": "**2. The Lagrangian.** One multiplier λ for the equality Σ pᵢ = 1 and one μᵢ ≥ 0 for each inequality pᵢ ≥ 0. The problem is convex with linear constraints, so the KKT conditions are necessary and sufficient.",
        "zh": "**2. 拉格朗日函数。** 等式约束 Σ pᵢ = 1 配一个乘子 λ，每个不等式约束 pᵢ ≥ 0 配一个乘子 μᵢ ≥ 0。问题是凸的且约束是线性的，所以 KKT 条件既必要又充分。",
    },
    "sfe.kkt_stationarity": {
        "en": "**3. Stationarity and complementary slackness.**",
        "zh": "**3. 驻点条件与互补松弛。**",
    },
    "sfe.kkt_cases": {
        "en": "**4. Two cases per class.** A class in the support has μᵢ = 0 and p equal to its logit minus λ; a class outside has pᵢ = 0 and its logit at most λ. Both cases together are one formula: a ReLU with threshold λ.",
        "zh": "**4. 每个类别分两种情形。** 支撑集内的类别 μᵢ = 0，概率等于它的 logit 减去 λ；支撑集外的类别 pᵢ = 0，它的 logit 不超过 λ。两种情形合起来就是一个公式：阈值为 λ 的 ReLU。",
    },
    "sfe.kkt_threshold": {
        "en": "**5. The threshold.** Summing pᵢ = zᵢ − λ over the support S gives λ. S consists of the largest logits, so sort them decreasingly and find the largest k whose k-th logit still lies above the threshold computed from the top k: that test is 1 + k z₍ₖ₎ > Σⱼ≤ₖ z₍ⱼ₎.",
        "zh": "**5. 阈值。** 在支撑集 S 上对 pᵢ = zᵢ − λ 求和即得 λ。S 由最大的若干 logit 组成，所以把它们从大到小排序，找出最大的 k，使第 k 大的 logit 仍高于由前 k 个算出的阈值：这个检验就是 1 + k z₍ₖ₎ > Σⱼ≤ₖ z₍ⱼ₎。",
    },
    "sfe.kkt_live": {
        "en": "**6. Live, on the logits set above.**",
        "zh": "**6. 现场计算：上方设定的 logits。**",
    },
    "sfe.col_passes": {
        "en": "1 + k z₍ₖ₎ > Σ?",
        "zh": "1 + k z₍ₖ₎ > Σ？",
    },
    "sfe.yes": {
        "en": "yes",
        "zh": "是",
    },
    "sfe.no": {
        "en": "no",
        "zh": "否",
    },
    "sfe.support": {
        "en": "support size K",
        "zh": "支撑集大小 K",
    },
    "sfe.lambda": {
        "en": "λ from the steps",
        "zh": "逐步算出的 λ",
    },
    "sfe.lambda_probcore": {
        "en": "λ from probcore",
        "zh": "probcore 给出的 λ",
    },
    "sfe.logits": {
        "en": "logits z",
        "zh": "logits z",
    },
    "sfe.p_relu": {
        "en": "p = relu(z − λ)",
        "zh": "p = relu(z − λ)",
    },
    "sfe.kkt_title": {
        "en": "Logits, the threshold λ, and p = relu(z − λ)",
        "zh": "logits、阈值 λ 与 p = relu(z − λ)",
    },
    "sfe.kkt_note": {
        "en": "K = {K}, λ = {lam}. |λ − probcore.threshold.sparsemax_threshold(z)| = {diff}; largest |relu(z − λ) − probcore.sparsemax(z)| = {pdiff}. Every logit above the dashed line keeps its excess over λ as its probability; the others get 0.",
        "zh": "K = {K}，λ = {lam}。|λ − probcore.threshold.sparsemax_threshold(z)| = {diff}；|relu(z − λ) − probcore.sparsemax(z)| 的最大值为 {pdiff}。虚线以上的 logit 把高出 λ 的部分留作概率，其余为 0。",
    },
    "sfe.entmax15": {
        "en": "The exact 1.5-entmax algorithm, and the bisection bracket",
        "zh": "1.5-entmax 的精确算法，以及二分法的区间",
    },
    "sfe.entmax15_text": {
        "en": "For α = 1.5, p = relu(z − λ)² with z = x/2. Sort z decreasingly and suppose the support is the k largest: then Σᵢ≤ₖ (z₍ᵢ₎ − λ)² = 1, a quadratic in λ whose root below the mean is λₖ = μₖ − √(1/k − σₖ²), with μₖ and σₖ² the mean and variance of the k largest. If σₖ² > 1/k there is no real root, since the sum is at least k σₖ² > 1: k cannot be the support. Take the k with z₍ₖ₎ ≥ λₖ ≥ z₍ₖ₊₁₎. Other α (except 2, sparsemax) have no such closed form in general: shift z = (α − 1)x so that its largest entry is 1; then g(λ) = Σ relu(z − λ)^(1/(α−1)) is ≥ 1 at λ = 0 (the largest entry alone gives 1) and 0 at λ = 1, so the λ with g(λ) = 1 lies in [0, 1), where bisection finds it.",
        "zh": "α = 1.5 时 p = relu(z − λ)²，其中 z = x/2。把 z 从大到小排序，设支撑集是最大的 k 个：则 Σᵢ≤ₖ (z₍ᵢ₎ − λ)² = 1，这是关于 λ 的一元二次方程，小于均值的那个根为 λₖ = μₖ − √(1/k − σₖ²)，μₖ 与 σₖ² 是最大的 k 个数的均值与方差。若 σₖ² > 1/k 则没有实根，因为这个和至少是 k σₖ² > 1：k 不可能是支撑集大小。取满足 z₍ₖ₎ ≥ λₖ ≥ z₍ₖ₊₁₎ 的那个 k。除 α = 2（sparsemax）外，其他 α 一般没有这样的闭式解：平移 z = (α − 1)x 使其最大分量为 1；则 g(λ) = Σ relu(z − λ)^(1/(α−1)) 在 λ = 0 处 ≥ 1（仅最大分量就贡献 1），在 λ = 1 处为 0，所以使 g(λ) = 1 的 λ 落在 [0, 1) 中，用二分法即可求得。",
    },
    "sfe.entmax15_note": {
        "en": "For the logits above the rule picks k = {k}: λ = {lam}, |λ − probcore.threshold.entmax15_threshold(z)| = {diff}, largest |relu(x/2 − λ)² − probcore.entmax15(x)| = {pdiff} (a blank λₖ: σₖ² > 1/k, no real root). The bracket for α = {alpha}, after the shift: g(0) = {g0}, g(1) = {g1}, and probcore's λ = {blam} lies in [0, 1), with g(λ) = {g}.",
        "zh": "对上方的 logits，该规则选出 k = {k}：λ = {lam}，|λ − probcore.threshold.entmax15_threshold(z)| = {diff}，|relu(x/2 − λ)² − probcore.entmax15(x)| 的最大值为 {pdiff}（λₖ 为空：σₖ² > 1/k，没有实根）。α = {alpha} 平移后的区间：g(0) = {g0}，g(1) = {g1}，probcore 的 λ = {blam} 落在 [0, 1) 中，g(λ) = {g}。",
    },
    "sfe.hard_sigmoid": {
        "en": "Binary sparsemax is a hard sigmoid",
        "zh": "二分类 sparsemax 是硬 sigmoid",
    },
    "sfe.hard_sigmoid_text": {
        "en": "With two classes softmax gives p₁ = σ(z₁ − z₂), the sigmoid. Sparsemax gives p₁ = clip((z₁ − z₂ + 1)/2, 0, 1): a straight line of slope ½ through (0, ½), exactly 0 for z₁ − z₂ ≤ −1 and exactly 1 for z₁ − z₂ ≥ 1. That is a hard sigmoid; the sigmoid's own slope at 0 is ¼, and it never reaches 0 or 1.",
        "zh": "两个类别时，softmax 给出 p₁ = σ(z₁ − z₂)，即 sigmoid。sparsemax 给出 p₁ = clip((z₁ − z₂ + 1)/2, 0, 1)：一条过 (0, ½)、斜率为 ½ 的直线，z₁ − z₂ ≤ −1 时恰为 0，z₁ − z₂ ≥ 1 时恰为 1。这就是硬 sigmoid；sigmoid 自身在 0 处的斜率为 ¼，且永远达不到 0 或 1。",
    },
    "sfe.hs_title": {
        "en": "p₁ of two classes against t = z₁ − z₂",
        "zh": "两个类别时 p₁ 随 t = z₁ − z₂ 的变化",
    },
    "sfe.hs_note": {
        "en": "probcore.sparsemax and clip((t + 1)/2, 0, 1) differ by at most {diff} on this grid. At t = 1 sparsemax gives {s1} and softmax σ(1) = {sig1}.",
        "zh": "在此网格上 probcore.sparsemax 与 clip((t + 1)/2, 0, 1) 最多相差 {diff}。t = 1 时 sparsemax 给出 {s1}，softmax 给出 σ(1) = {sig1}。",
    },
}
