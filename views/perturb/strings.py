"""The words of the Perturb-max & Gumbel page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.perturb": {
        "en": "Perturb-max & Gumbel",
        "zh": "Perturb-max 与 Gumbel",
    },
    "perturb.intro": {
        "en": "Sampling by noise: add random noise to the logits and keep the argmax. Gumbel noise makes the winner follow softmax(x) exactly; other noises give other mappings (perturb-max); a softmax in place of the argmax gives Gumbel-softmax samples.",
        "zh": "用噪声采样：给 logits 加上随机噪声，再取 argmax。加 Gumbel 噪声时，胜出的类别恰好服从 softmax(x)；换成其他噪声得到其他映射（Perturb-max）；把 argmax 换成 softmax 就得到 Gumbel-softmax 样本。",
    },
    "perturb.samples": {
        "en": "Monte-Carlo samples N",
        "zh": "蒙特卡洛样本数 N",
    },
    "perturb.capped": {
        "en": "n = {n}: N is capped at {cap:,} here (at most {budget:,} noise draws N × n per estimate).",
        "zh": "n = {n}：此处 N 最多取 {cap:,}（每次估计最多 {budget:,} 次噪声抽样 N × n）。",
    },
    "perturb.seed_note": {
        "en": "Noise from torch.Generator().manual_seed({seed}) (the seed of the logit controls above), drawn in blocks of 10, 10, 30, 50, 100, … so that each N on the curve extends the sample of the previous one. Temperature 1.",
        "zh": "噪声来自 torch.Generator().manual_seed({seed})（上方 logit 控件中的种子），按 10、10、30、50、100…… 分块抽取，因此曲线上每个 N 都是在前一个 N 的样本上继续追加。温度为 1。",
    },
    "perturb.noise_gumbel": {
        "en": "Gumbel",
        "zh": "Gumbel",
    },
    "perturb.noise_normal": {
        "en": "normal",
        "zh": "正态",
    },
    "perturb.noise_uniform": {
        "en": "uniform",
        "zh": "均匀",
    },
    "perturb.noise_logistic": {
        "en": "logistic",
        "zh": "Logistic",
    },
    "perturb.gumbel_max": {
        "en": "Gumbel-max: sampling softmax with an argmax",
        "zh": "Gumbel-max：用 argmax 从 softmax 中采样",
    },
    "perturb.gumbel_max_text": {
        "en": "Give every logit its own independent standard Gumbel noise and record which class ends up largest. Over N repetitions the share of wins of each class tends to softmax(x). The randomness has moved from a discrete distribution that depends on x into noise that does not: this reparameterisation is what Gumbel-softmax smooths below.",
        "zh": "给每个 logit 各自加上独立的标准 Gumbel 噪声，记下加噪后最大的是哪一类。重复 N 次，各类胜出的比例趋于 softmax(x)。随机性从依赖 x 的离散分布转移到了与 x 无关的噪声上：这就是重参数化，下文的 Gumbel-softmax 正是把它光滑化。",
    },
    "perturb.hist_title": {
        "en": "Share of argmax(x + g) over N = {N:,} draws against softmax(x)",
        "zh": "N = {N:,} 次抽样中 argmax(x + g) 的频率与 softmax(x) 对比",
    },
    "perturb.frequency": {
        "en": "frequency of argmax(x + g)",
        "zh": "argmax(x + g) 的频率",
    },
    "perturb.softmax_ref": {
        "en": "softmax(x), exact",
        "zh": "softmax(x)（精确值）",
    },
    "perturb.freq_axis": {
        "en": "frequency / probability",
        "zh": "频率 / 概率",
    },
    "perturb.error_title": {
        "en": "Error of the Gumbel-max frequencies against N",
        "zh": "Gumbel-max 频率的误差随 N 的变化",
    },
    "perturb.n_axis": {
        "en": "samples N",
        "zh": "样本数 N",
    },
    "perturb.error_axis": {
        "en": "error",
        "zh": "误差",
    },
    "perturb.tv": {
        "en": "total variation ½ Σ |fᵢ − pᵢ|",
        "zh": "总变差 ½ Σ |fᵢ − pᵢ|",
    },
    "perturb.max_err": {
        "en": "largest error maxᵢ |fᵢ − pᵢ|",
        "zh": "最大误差 maxᵢ |fᵢ − pᵢ|",
    },
    "perturb.clt": {
        "en": "central-limit expectation Σ √(pᵢ(1 − pᵢ)/(2πN))",
        "zh": "中心极限定理给出的期望 Σ √(pᵢ(1 − pᵢ)/(2πN))",
    },
    "perturb.error_note": {
        "en": "At N = {N:,}: total variation {tv:.4f}, largest error {err:.4f}; the central limit theorem expects {clt:.4f} on average. A factor 100 in N divides the error by about 10: slope −½ on these log-log axes.",
        "zh": "N = {N:,} 时：总变差 {tv:.4f}，最大误差 {err:.4f}；按中心极限定理平均应为 {clt:.4f}。N 增大 100 倍，误差约缩小到 1/10：在双对数坐标中斜率为 −½。",
    },
    "perturb.perturbmax": {
        "en": "Perturb-max: other noises",
        "zh": "Perturb-max：换用其他噪声",
    },
    "perturb.perturbmax_text": {
        "en": "Swap the Gumbel noise for any noise ε with density φ and distribution function Φ. The chance that class i wins is a one-dimensional integral, which probcore evaluates by deterministic quadrature (bars); the Monte-Carlo frequencies (◆) estimate the same numbers. Only Gumbel noise reproduces softmax. Every noise ignores a common shift and never reverses the order (a larger logit never gets a smaller p), but only the unbounded noises (Gumbel, normal, logistic) keep it strictly, with every p > 0. Uniform noise on (−½, ½) is bounded: a class more than 1 below the largest logit can never win, so it gets exactly 0 — x = (2, 0.5, 0) gives (1, 0, 0), two different logits tied at 0. Perturb-max with uniform noise is sparse.",
        "zh": "把 Gumbel 噪声换成任意噪声 ε（密度 φ，分布函数 Φ）。第 i 类胜出的概率是一个一维积分，probcore 用确定性的数值积分计算它（柱）；蒙特卡洛频率（◆）估计的是同一组数。只有 Gumbel 噪声恰好给出 softmax。每种噪声都不受整体平移的影响，也从不颠倒顺序（logit 大的类概率不会更小），但只有无界噪声（Gumbel、正态、logistic）严格保序且每个 p > 0。(−½, ½) 上的均匀噪声是有界的：比最大 logit 低 1 以上的类永远赢不了，概率恰为 0——x = (2, 0.5, 0) 给出 (1, 0, 0)，两个不同的 logit 并列为 0。用均匀噪声的 Perturb-max 是稀疏的。",
    },
    "perturb.noises": {
        "en": "noises",
        "zh": "噪声",
    },
    "perturb.no_noise": {
        "en": "Select at least one noise.",
        "zh": "请至少选择一种噪声。",
    },
    "perturb.quad_label": {
        "en": "{noise}: quadrature",
        "zh": "{noise}：数值积分",
    },
    "perturb.mc_label": {
        "en": "{noise}: Monte-Carlo",
        "zh": "{noise}：蒙特卡洛",
    },
    "perturb.quad_title": {
        "en": "Perturb-max p: quadrature (bars) and Monte-Carlo with N = {N:,} (◆)",
        "zh": "Perturb-max 的 p：数值积分（柱）与 N = {N:,} 的蒙特卡洛（◆）",
    },
    "perturb.mc_error_title": {
        "en": "Total variation between Monte-Carlo and quadrature against N",
        "zh": "蒙特卡洛与数值积分之间的总变差随 N 的变化",
    },
    "perturb.clt_short": {
        "en": "{noise}: central-limit expectation",
        "zh": "{noise}：中心极限定理期望",
    },
    "perturb.uniform_skipped": {
        "en": "Uniform noise is left out: its exact quadrature grows like m², m the number of logits within 1 of the largest (only they can win), and is shown up to m = {limit} (here m = {n}).",
        "zh": "未显示均匀噪声：其精确数值积分的开销随 m² 增长（m 为与最大 logit 相差不到 1 的 logit 个数，只有它们可能胜出），只在 m ≤ {limit} 时显示（当前 m = {n}）。",
    },
    "perturb.quad_note": {
        "en": "Noises: Gumbel(0, 1), normal N(0, 1), uniform on (−½, ½), logistic(0, 1); temperature 1. Largest |quadrature − Monte-Carlo| at N = {N:,}: {errors}. The Gumbel bars equal softmax(x) to {gap:.1e}.",
        "zh": "噪声：Gumbel(0, 1)、正态 N(0, 1)、(−½, ½) 上的均匀分布、Logistic(0, 1)；温度为 1。N = {N:,} 时 |数值积分 − 蒙特卡洛| 的最大值：{errors}。Gumbel 的柱与 softmax(x) 相差不超过 {gap:.1e}。",
    },
    "perturb.gumbel_softmax": {
        "en": "Gumbel-softmax: a soft, differentiable sample",
        "zh": "Gumbel-softmax：可微的软样本",
    },
    "perturb.gumbel_softmax_text": {
        "en": "Put a softmax at temperature T where the argmax was: the sample y = softmax((x + g)/T) lies inside the simplex and moves smoothly with x, so gradients can flow through it. As T → 0 the samples approach the one-hot vectors of Gumbel-max; as T grows they flatten toward uniform. The straight-through (hard) variant uses the one-hot vector in the forward pass and the gradient of the soft sample in the backward pass.",
        "zh": "把 argmax 换成温度为 T 的 softmax：样本 y = softmax((x + g)/T) 落在单纯形内部，并随 x 光滑变化，因此梯度可以穿过它。T → 0 时样本趋于 Gumbel-max 的 one-hot 向量；T 越大，样本越趋于均匀。直通（硬）版本在前向传播中使用 one-hot 向量，在反向传播中使用软样本的梯度。",
    },
    "perturb.tau": {
        "en": "temperature T",
        "zh": "温度 T",
    },
    "perturb.draws": {
        "en": "samples shown",
        "zh": "显示的样本数",
    },
    "perturb.strips_title": {
        "en": "{draws} Gumbel-softmax samples at T = {tau:g}",
        "zh": "T = {tau:g} 时的 {draws} 个 Gumbel-softmax 样本",
    },
    "perturb.soft": {
        "en": "soft y = softmax((x + g)/T)",
        "zh": "软样本 y = softmax((x + g)/T)",
    },
    "perturb.hard": {
        "en": "hard (straight-through one-hot)",
        "zh": "硬样本（直通 one-hot）",
    },
    "perturb.draw_axis": {
        "en": "sample",
        "zh": "样本",
    },
    "perturb.sharpness_title": {
        "en": "How close to one-hot: mean of maxᵢ yᵢ over {draws} samples per T",
        "zh": "离 one-hot 有多近：每个 T 下 {draws} 个样本的 maxᵢ yᵢ 平均值",
    },
    "perturb.mean_max": {
        "en": "mean maxᵢ yᵢ",
        "zh": "maxᵢ yᵢ 的平均值",
    },
    "perturb.mean_max_axis": {
        "en": "mean maxᵢ yᵢ",
        "zh": "maxᵢ yᵢ 的平均值",
    },
    "perturb.onehot_limit": {
        "en": "1 (one-hot, T → 0)",
        "zh": "1（one-hot，T → 0）",
    },
    "perturb.uniform_limit": {
        "en": "1/n = 1/{n} (uniform, T → ∞)",
        "zh": "1/n = 1/{n}（均匀，T → ∞）",
    },
    "perturb.chosen_tau": {
        "en": "chosen T = {tau}",
        "zh": "所选 T = {tau}",
    },
    "perturb.tau_snapped": {
        "en": "T = {value} is not one of the offered temperatures: using the nearest, T = {tau:g}.",
        "zh": "T = {value} 不在可选温度之中：改用最接近的 T = {tau:g}。",
    },
    "perturb.strip_note": {
        "en": "Soft and hard rows share their noise: each hard row is the one-hot vector of the largest entry of its soft row. Every T uses the same noise (seed {seed}), so only the temperature changes.",
        "zh": "软样本与硬样本使用相同的噪声：每一行硬样本都是对应软样本最大分量的 one-hot 向量。所有 T 都使用同一份噪声（种子 {seed}），因此只有温度在变。",
    },
    "perturb.quantiles": {
        "en": "Quantiles instead of samples, and a smooth accuracy",
        "zh": "用分位数代替采样，以及平滑的准确率",
    },
    "perturb.quantiles_text": {
        "en": "For most noises the integral pᵢ = E_ε[Πⱼ≠ᵢ Φ(xᵢ − xⱼ + ε)] has no closed form. A deterministic estimate replaces random draws by M evenly spaced quantiles: take tₘ = (m − ½)/M and εₘ = Φ⁻¹(tₘ) through the inverse distribution function, then average. Used with a temperature, perturb-max also smooths accuracy: 1[argmax x = t] jumps, while the chance that argmax(x + Tε) = t, which is perturb-max's pₜ at temperature T, changes smoothly with x and, when the largest logit is unique, tends to the accuracy as T → 0 (the EXACT method trains it).",
        "zh": "对大多数噪声，积分 pᵢ = E_ε[Πⱼ≠ᵢ Φ(xᵢ − xⱼ + ε)] 没有闭式解。一种确定性的估计是用 M 个均匀分布的分位数代替随机采样：取 tₘ = (m − ½)/M，通过逆累积分布函数得到 εₘ = Φ⁻¹(tₘ)，再求平均。加上温度后，Perturb-max 还能把准确率变光滑：1[argmax x = t] 是跳变的，而 argmax(x + Tε) = t 的概率（即温度 T 下 Perturb-max 的 pₜ）随 x 光滑变化；最大的 logit 唯一时，T → 0 时它趋于准确率（EXACT 方法训练的就是它）。",
    },
    "perturb.col_quantile_error": {
        "en": "largest |quantile estimate − probcore|",
        "zh": "|分位数估计 − probcore| 的最大值",
    },
    "perturb.quantiles_note": {
        "en": 'Normal noise, the logits above. Left: the quantile estimate against probcore.perturbmax(x, noise="normal") (quadrature), for M quantiles. Right: the smooth accuracy of class 0, probcore.perturbmax(x, noise="normal", temperature=T)₀; its accuracy 1[argmax x = 0] here is {accuracy}.',
        "zh": '正态噪声，上方的 logits。左：分位数估计与 probcore.perturbmax(x, noise="normal")（数值积分）之差，M 为分位数个数。右：类别 0 的平滑的准确率 probcore.perturbmax(x, noise="normal", temperature=T)₀；这里它的准确率 1[argmax x = 0] 为 {accuracy}。',
    },
    "perturb.quantiles_large_n": {
        "en": "The quantile estimate and the smooth accuracy are shown for n ≤ {limit} classes (the estimate holds n × n × M values); here n = {n}.",
        "zh": "分位数估计与平滑的准确率只在 n ≤ {limit} 个类别时显示（估计要存 n × n × M 个值）；这里 n = {n}。",
    },
}
