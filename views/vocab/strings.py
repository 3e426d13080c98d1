"""The words of the Large vocabularies page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.vocab": {
        "en": "Large vocabularies",
        "zh": "大词表",
    },
    "vocab.intro": {
        "en": "Softmax over a vocabulary of n words costs O(n) per example: its normaliser Z = Σⱼ exp(xⱼ) touches every word. Three ways around it, computed by probcore.vocab.",
        "zh": "在 n 个词的词表上做 softmax，每个样本都要花 O(n)：配分函数 Z = Σⱼ exp(xⱼ) 要遍历所有词。下面是三种绕开它的办法，全部由 probcore.vocab 计算。",
    },
    "vocab.explain": {
        "en": "Word frequencies follow a Zipf law fᵢ ∝ i⁻ˢ. **Hierarchical softmax** replaces one n-way choice by a walk down a binary tree; **sampling** estimates Z (and its gradient) from m words drawn from a proposal q; **NCE** turns the problem into telling data from k noise words, so Z is never needed. The vocabulary is set by the controls below, not by logits.",
        "zh": "词频服从 Zipf 律 fᵢ ∝ i⁻ˢ。**层次 softmax** 把一次 n 选一变成沿二叉树往下走的若干次二选一；**采样**用从提议分布 q 抽出的 m 个词来估计 Z（及其梯度）；**NCE** 把问题变成区分真实数据和 k 个噪声词，根本不需要 Z。词表由下面的控件决定，而不是由 logits 决定。",
    },
    "vocab.n": {
        "en": "vocabulary size n",
        "zh": "词表大小 n",
    },
    "vocab.n_help": {
        "en": "Number of classes (words), 2 to {high:,}.",
        "zh": "类别（词）个数，2 到 {high:,}。",
    },
    "vocab.s": {
        "en": "Zipf exponent s",
        "zh": "Zipf 指数 s",
    },
    "vocab.s_help": {
        "en": "Frequencies fᵢ ∝ i⁻ˢ: s = 0 is uniform, larger s concentrates the mass on a few frequent words.",
        "zh": "词频 fᵢ ∝ i⁻ˢ：s = 0 为均匀分布，s 越大，概率质量越集中在少数高频词上。",
    },
    "vocab.sigma": {
        "en": "context noise σ",
        "zh": "上下文噪声 σ",
    },
    "vocab.sigma_help": {
        "en": "The logits of one context: x = log f + σ·N(0, 1). σ = 0 makes softmax(x) equal to the unigram frequencies.",
        "zh": "某个上下文的 logits：x = log f + σ·N(0, 1)。σ = 0 时 softmax(x) 正好等于 unigram 词频。",
    },
    "vocab.seed": {
        "en": "seed",
        "zh": "随机种子",
    },
    "vocab.proposal_uniform": {
        "en": "uniform q = 1/n",
        "zh": "均匀 q = 1/n",
    },
    "vocab.proposal_unigram": {
        "en": "unigram q = f (Zipf)",
        "zh": "unigram q = f(Zipf)",
    },
    "vocab.hs": {
        "en": "Hierarchical softmax on a Huffman tree",
        "zh": "基于 Huffman 树的层次 softmax",
    },
    "vocab.hs_explain": {
        "en": "Each inner node v of a binary tree holds a vector w_v; the probability of word i is the product of the sigmoid decisions along its path (left: σ(hᵀw), right: σ(−hᵀw) = 1 − σ(hᵀw)). The two branches of every node add up to 1, so the n leaves sum to 1 with no normaliser. Building the tree by Huffman coding of the frequencies gives frequent words short paths: the expected path length is at most one bit above the entropy. Below: one random h and random node vectors (d = {d}).",
        "zh": "二叉树的每个内部节点 v 带一个向量 w_v；词 i 的概率是其路径上各次 sigmoid 决策的乘积（向左：σ(hᵀw)，向右：σ(−hᵀw) = 1 − σ(hᵀw)）。每个节点两个分支之和为 1，所以 n 个叶子的概率之和天然为 1，不需要归一化。按词频做 Huffman 编码来建树，高频词路径短：期望路径长度最多比熵多 1 比特。下面用一个随机的 h 和随机的节点向量（d = {d}）。",
    },
    "vocab.hs_sum": {
        "en": "Σᵢ p_HS(i | h)",
        "zh": "Σᵢ p_HS(i | h)",
    },
    "vocab.hs_sum_help": {
        "en": "Sum of the n leaf probabilities computed by probcore.vocab.hierarchical_softmax (float64).",
        "zh": "probcore.vocab.hierarchical_softmax 算出的 n 个叶子概率之和（float64）。",
    },
    "vocab.hs_sum_err": {
        "en": "|Σ p − 1|",
        "zh": "|Σ p − 1|",
    },
    "vocab.expected_len": {
        "en": "expected path length (bits)",
        "zh": "期望路径长度（比特）",
    },
    "vocab.expected_len_help": {
        "en": "Σᵢ fᵢ · len(i): the mean number of sigmoids evaluated per training word.",
        "zh": "Σᵢ fᵢ · len(i)：每个训练词平均要计算的 sigmoid 次数。",
    },
    "vocab.entropy": {
        "en": "entropy H (bits)",
        "zh": "熵 H(比特)",
    },
    "vocab.log2n": {
        "en": "log₂ n (bits)",
        "zh": "log₂ n(比特)",
    },
    "vocab.tree_title": {
        "en": "Huffman tree of n = {n} Zipf frequencies (leaf colour: p_HS)",
        "zh": "n = {n} 个 Zipf 词频的 Huffman 树（叶子颜色：p_HS）",
    },
    "vocab.tree_hidden": {
        "en": "n = {n}: the tree is drawn up to n = {limit}.",
        "zh": "n = {n}：只在 n ≤ {limit} 时画出整棵树。",
    },
    "vocab.lengths_title": {
        "en": "Code (path) lengths, n = {n}, s = {s:g}",
        "zh": "编码（路径）长度，n = {n}，s = {s:g}",
    },
    "vocab.bound_title": {
        "en": "Expected path length against n (s = {s:g})",
        "zh": "期望路径长度随 n 的变化（s = {s:g}）",
    },
    "vocab.hs_note": {
        "en": "A balanced tree needs log₂ n decisions for every word; the Huffman tree needs fewer on average when the frequencies are skewed (s > 0), at the price of long paths for rare words. With s = 0 the entropy is log₂ n, and the Huffman length equals it only when n is a power of 2 (here n = {n}: {length} bits against log₂ n = {log2n}).",
        "zh": "平衡树对每个词都要做 log₂ n 次决策；词频偏斜（s > 0）时 Huffman 树平均所需更少，代价是低频词的路径很长。s = 0 时熵等于 log₂ n，而 Huffman 平均长度只在 n 为 2 的幂时与之相等（这里 n = {n}：{length} 比特，log₂ n = {log2n}）。",
    },
    "vocab.is": {
        "en": "Sampled softmax: importance sampling of log Z",
        "zh": "采样 softmax：用重要性采样估计 log Z",
    },
    "vocab.is_explain": {
        "en": "Draw m words s₁…s_m from a proposal q and reweight: Ẑ is unbiased for Z, but log Ẑ is biased low (Jensen's inequality), by about half the relative variance. The variance is χ²(p‖q)/m, so a proposal close to p = softmax(x) needs far fewer samples. The same weights, normalised, estimate ∇ₓ log Z = softmax(x): the sampled-softmax gradient. Each point: {repeats} independent estimates.",
        "zh": "从提议分布 q 抽 m 个词 s₁…s_m 并加权：Ẑ 是 Z 的无偏估计，但由于 Jensen 不等式，log Ẑ 偏低，偏差约为相对方差的一半。方差等于 χ²(p‖q)/m，所以 q 越接近 p = softmax(x)，所需样本越少。同样的权重归一化后可以估计 ∇ₓ log Z = softmax(x)，这就是采样 softmax 的梯度。每个点来自 {repeats} 次独立估计。",
    },
    "vocab.log_z": {
        "en": "exact log Z",
        "zh": "精确的 log Z",
    },
    "vocab.chi2": {
        "en": "χ²(p‖q), {q}",
        "zh": "χ²(p‖q),{q}",
    },
    "vocab.chi2_help": {
        "en": "Var[Ẑ/Z] with one sample (probcore.vocab.partition_estimate_variance); m samples divide it by m.",
        "zh": "单个样本时 Var[Ẑ/Z] 的值（probcore.vocab.partition_estimate_variance）；m 个样本时再除以 m。",
    },
    "vocab.is_exact": {
        "en": "{proposals}: q equals softmax(x), so every weight equals Z and Ẑ is exact (zero variance, nothing to draw on a log axis); the gradient estimate still is the empirical frequency of the samples.",
        "zh": "{proposals}：q 等于 softmax(x)，每个权重都等于 Z，Ẑ 是精确的（方差为 0，对数坐标上画不出来）；但梯度估计仍然只是样本的经验频率。",
    },
    "vocab.log_z_title": {
        "en": "log Ẑ against m (mean ± one standard deviation over {repeats} estimates)",
        "zh": "log Ẑ 随 m 的变化（{repeats} 次估计的均值 ± 一个标准差）",
    },
    "vocab.bias_var_title": {
        "en": "Bias and variance of the estimate",
        "zh": "估计的偏差与方差",
    },
    "vocab.bias_var_note": {
        "en": "Left: bars are ± 2 standard errors; the dashed line −χ²/(2m) is the large-m approximation, drawn where χ²/m ≤ 1. Right: the measured variance of Ẑ/Z against its exact value χ²/m. With few samples the measured variance is erratic: the weights are heavy-tailed.",
        "zh": "左：误差棒为 ± 2 个标准误；虚线 −χ²/(2m) 是 m 较大时的近似，只画在 χ²/m ≤ 1 的范围。右：实测的 Ẑ/Z 方差与精确值 χ²/m 对比。样本很少时实测方差跳动很大：权重是重尾的。",
    },
    "vocab.grad_title": {
        "en": "Error of the sampled gradient of log Z",
        "zh": "log Z 采样梯度的误差",
    },
    "vocab.grad_note": {
        "en": "½‖ĝ − softmax(x)‖₁ (total variation), mean over the estimates. The self-normalised estimate ĝ puts mass only on the sampled words, so it converges slowly when n is large, even when log Ẑ is already good.",
        "zh": "½‖ĝ − softmax(x)‖₁（总变差），对多次估计取平均。自归一化估计 ĝ 只在抽到的词上有概率质量，所以 n 很大时收敛很慢，即使 log Ẑ 已经很准。",
    },
    "vocab.nce": {
        "en": "Noise-contrastive estimation (NCE)",
        "zh": "噪声对比估计（NCE）",
    },
    "vocab.nce_explain": {
        "en": "NCE trains a logistic classifier to tell the observed word t from k words drawn from the noise q (here the unigram), with the score x − log(k q). Its optimum is x = log p_data: the model normalises itself, and each step costs k + 1 scores instead of n. Below the scores are the normalised log-probabilities log softmax(x) of the context above, with one target t drawn from softmax(x).",
        "zh": "NCE 训练一个逻辑回归分类器，用得分 x − log(k q) 区分真实词 t 和从噪声分布 q（这里是 unigram）抽出的 k 个词。它的最优解是 x = log p_data：模型自己学会归一化，每一步只需 k + 1 个得分而不是 n 个。下面的得分取上面那个上下文的归一化对数概率 log softmax(x)，目标词 t 从 softmax(x) 中抽取。",
    },
    "vocab.nce_target": {
        "en": "target word t",
        "zh": "目标词 t",
    },
    "vocab.nce_ce": {
        "en": "full softmax CE −log pₜ",
        "zh": "完整 softmax 交叉熵 −log pₜ",
    },
    "vocab.nce_pq": {
        "en": "pₜ / qₜ",
        "zh": "pₜ / qₜ",
    },
    "vocab.nce_title": {
        "en": "NCE against k (target t = {t}, {repeats} noise draws per k)",
        "zh": "NCE 随 k 的变化（目标 t = {t}，每个 k 抽 {repeats} 次噪声）",
    },
    "vocab.nce_note": {
        "en": "Left: the NCE loss grows like log k. For large k it tends to CE + log(k qₜ) + Z − log Z, with Z = Σⱼ exp(scoreⱼ) the model's partition function: Z = 1 here only because the scores are normalised log-probabilities, and Z − log Z is smallest at Z = 1, which is why NCE makes a model normalise itself (section below). Right: the NCE gradient with respect to the scores tends to the cross-entropy gradient p − onehot(t) as k grows (dashed: the bias of its expectation; solid: the error of one draw).",
        "zh": "左：NCE 损失随 log k 增长。k 很大时它趋于 CE + log(k qₜ) + Z − log Z，其中 Z = Σⱼ exp(得分ⱼ) 是模型的配分函数：这里 Z = 1 只是因为得分取的是归一化的对数概率；而 Z − log Z 在 Z = 1 处最小，这正是 NCE 让模型自归一化的原因（见下一节）。右：随着 k 增大，NCE 对得分的梯度趋于交叉熵梯度 p − onehot(t)（虚线：期望梯度的偏差；实线：单次抽样的误差）。",
    },
    "vocab.cost": {
        "en": "Cost against n, measured here",
        "zh": "开销随 n 的变化（在本机实测）",
    },
    "vocab.cost_explain": {
        "en": "probcore.vocab.measure_costs times one forward loss for a batch of {batch} hidden vectors (d = {d}, median of {repeats} runs) with the full softmax (O(n d)), hierarchical softmax (O(d · path length)) and sampled softmax with m = {m} samples (O(m d)), for n = {ns}. It builds weight matrices and Huffman trees up to the largest n, so it runs only when you press the button.",
        "zh": "probcore.vocab.measure_costs 对 {batch} 个隐向量（d = {d}，取 {repeats} 次的中位数）计时一次前向损失：完整 softmax(O(n d))、层次 softmax(O(d · 路径长度))和 m = {m} 个样本的采样 softmax(O(m d))，n = {ns}。它要为最大的 n 构造权重矩阵和 Huffman 树，所以只在按下按钮时运行。",
    },
    "vocab.method_full": {
        "en": "full softmax",
        "zh": "完整 softmax",
    },
    "vocab.method_hierarchical": {
        "en": "hierarchical softmax",
        "zh": "层次 softmax",
    },
    "vocab.method_sampled": {
        "en": "sampled softmax",
        "zh": "采样 softmax",
    },
    "vocab.cost_button": {
        "en": "Measure now (s = {s:g})",
        "zh": "立即测量（s = {s:g}）",
    },
    "vocab.cost_running": {
        "en": "Measuring on this machine…",
        "zh": "正在本机上测量……",
    },
    "vocab.cost_first": {
        "en": "Not measured yet in this session: it takes several seconds (the time of the run is shown after it).",
        "zh": "本次会话尚未测量：需要几秒钟（测完会显示实际用时）。",
    },
    "vocab.cost_done": {
        "en": "Measured in {seconds:.1f} s with {threads} torch thread(s), s = {s:g}. Press the button again to measure anew.",
        "zh": "用 {threads} 个 torch 线程、s = {s:g} 测量，耗时 {seconds:.1f} 秒。再按一次按钮可重新测量。",
    },
    "vocab.cost_title": {
        "en": "Time of one loss against n (log–log)",
        "zh": "一次损失的耗时随 n 的变化（双对数）",
    },
    "vocab.cost_note": {
        "en": "The full softmax grows linearly in n; the other two stay almost flat (the Huffman depth grows like log n, the sampler's cost with m). At small n fixed overheads dominate.",
        "zh": "完整 softmax 随 n 线性增长；另外两种几乎不变（Huffman 深度按 log n 增长，采样的开销取决于 m）。n 很小时固定开销占主导。",
    },
    "vocab.fig_edge": {
        "en": "tree edge",
        "zh": "树的边",
    },
    "vocab.fig_bit": {
        "en": "code bit",
        "zh": "编码位",
    },
    "vocab.fig_internal": {
        "en": "inner node (one sigmoid)",
        "zh": "内部节点（一次 sigmoid）",
    },
    "vocab.fig_leaf": {
        "en": "word (leaf)",
        "zh": "词（叶子）",
    },
    "vocab.fig_hs_p": {
        "en": "p_HS",
        "zh": "p_HS",
    },
    "vocab.fig_leaf_order": {
        "en": "leaves in code order",
        "zh": "按编码顺序排列的叶子",
    },
    "vocab.fig_depth": {
        "en": "−depth",
        "zh": "−深度",
    },
    "vocab.fig_share_classes": {
        "en": "share of words",
        "zh": "词数占比",
    },
    "vocab.fig_share_mass": {
        "en": "share of frequency mass",
        "zh": "词频占比",
    },
    "vocab.fig_entropy": {
        "en": "entropy H = {value:.3f}",
        "zh": "熵 H = {value:.3f}",
    },
    "vocab.fig_expected": {
        "en": "expected length = {value:.3f}",
        "zh": "期望长度 = {value:.3f}",
    },
    "vocab.fig_log2_n": {
        "en": "log₂ n = {value:.3f}",
        "zh": "log₂ n = {value:.3f}",
    },
    "vocab.fig_code_length": {
        "en": "code length (bits = sigmoids per word)",
        "zh": "编码长度（比特 = 每个词的 sigmoid 次数）",
    },
    "vocab.fig_share": {
        "en": "share",
        "zh": "占比",
    },
    "vocab.fig_expected_n": {
        "en": "Huffman expected length",
        "zh": "Huffman 期望长度",
    },
    "vocab.fig_entropy_n": {
        "en": "entropy H",
        "zh": "熵 H",
    },
    "vocab.fig_entropy_1": {
        "en": "H + 1",
        "zh": "H + 1",
    },
    "vocab.fig_log2_n_curve": {
        "en": "log₂ n (balanced tree)",
        "zh": "log₂ n（平衡树）",
    },
    "vocab.fig_max_length": {
        "en": "longest path",
        "zh": "最长路径",
    },
    "vocab.fig_n": {
        "en": "vocabulary size n",
        "zh": "词表大小 n",
    },
    "vocab.fig_bits": {
        "en": "bits",
        "zh": "比特",
    },
    "vocab.fig_exact_log_z": {
        "en": "exact log Z = {value:.4f}",
        "zh": "精确 log Z = {value:.4f}",
    },
    "vocab.fig_m": {
        "en": "samples m",
        "zh": "样本数 m",
    },
    "vocab.fig_log_z": {
        "en": "log Ẑ",
        "zh": "log Ẑ",
    },
    "vocab.fig_proposal": {
        "en": "proposal q",
        "zh": "提议分布 q",
    },
    "vocab.fig_bias_theory": {
        "en": "−χ²/(2m), {q}",
        "zh": "−χ²/(2m),{q}",
    },
    "vocab.fig_var_theory": {
        "en": "χ²/m, {q}",
        "zh": "χ²/m,{q}",
    },
    "vocab.fig_bias": {
        "en": "mean log Ẑ − log Z",
        "zh": "log Ẑ 均值 − log Z",
    },
    "vocab.fig_var": {
        "en": "Var[Ẑ / Z]",
        "zh": "Var[Ẑ / Z]",
    },
    "vocab.fig_bias_title": {
        "en": "bias of log Ẑ",
        "zh": "log Ẑ 的偏差",
    },
    "vocab.fig_var_title": {
        "en": "variance of Ẑ / Z",
        "zh": "Ẑ / Z 的方差",
    },
    "vocab.fig_grad_tv": {
        "en": "½‖ĝ − softmax(x)‖₁",
        "zh": "½‖ĝ − softmax(x)‖₁",
    },
    "vocab.fig_nce_sampled": {
        "en": "NCE loss (mean ± sd of draws)",
        "zh": "NCE 损失（抽样均值 ± 标准差）",
    },
    "vocab.fig_nce_exact": {
        "en": "its expectation",
        "zh": "其期望",
    },
    "vocab.fig_nce_limit": {
        "en": "CE + log(k qₜ) + Z − log Z (Z = 1)",
        "zh": "CE + log(k qₜ) + Z − log Z（Z = 1）",
    },
    "vocab.fig_ce": {
        "en": "softmax CE = {value:.3f}",
        "zh": "softmax 交叉熵 = {value:.3f}",
    },
    "vocab.fig_nce_grad_draw": {
        "en": "one draw",
        "zh": "单次抽样",
    },
    "vocab.fig_nce_grad_exact": {
        "en": "expected gradient (bias)",
        "zh": "期望梯度（偏差）",
    },
    "vocab.fig_k": {
        "en": "noise samples k",
        "zh": "噪声样本数 k",
    },
    "vocab.fig_loss": {
        "en": "loss",
        "zh": "损失",
    },
    "vocab.fig_grad_rel": {
        "en": "‖ĝ − (p − eₜ)‖₁ / ‖p − eₜ‖₁",
        "zh": "‖ĝ − (p − eₜ)‖₁ / ‖p − eₜ‖₁",
    },
    "vocab.fig_nce_loss_title": {
        "en": "loss",
        "zh": "损失",
    },
    "vocab.fig_nce_grad_title": {
        "en": "gradient against the softmax CE gradient",
        "zh": "与 softmax 交叉熵梯度的比较",
    },
    "vocab.fig_ms": {
        "en": "milliseconds per loss",
        "zh": "每次损失的毫秒数",
    },
    "vocab.fig_method": {
        "en": "method",
        "zh": "方法",
    },
    "vocab.train": {
        "en": "Training with NCE and sampled softmax",
        "zh": "用 NCE 与采样 softmax 训练",
    },
    "vocab.train_explain": {
        "en": "Both estimators above are training losses. **NCE with a learned log Z**: make the context's logits unnormalised (add an offset, so Z ≠ 1), give the model one extra parameter c, its learned −log Z, and train only c with NCE on targets drawn from softmax(x). Since NCE's optimum is scores equal to the data log-probabilities, c converges to −log Z: the model normalises itself without ever summing over the vocabulary. **Sampled softmax**: learn free scores θ from targets drawn from softmax(x), once with the full cross-entropy (n scores per step) and once with the sampled softmax loss (target plus m unigram samples, logQ correction); averaged over the targets, the full loss's gradient p − onehot is softmax(θ) − softmax(x); the sampled loss's expected gradient is in general another vector for a finite m (not even parallel to it), but it too is zero where the model equals the data, softmax(θ) = softmax(x), and the KL divergence to the data goes down for both. Adam, {batch} targets per step; it runs when you press the button.",
        "zh": "上面两个估计量都可以当训练损失。**学习 log Z 的 NCE**：给上下文的 logits 加一个偏移，使其不再归一化（Z ≠ 1），再给模型一个额外参数 c，即学到的 −log Z，只用 NCE 在从 softmax(x) 抽取的目标上训练 c。NCE 的最优解是得分等于数据的对数概率，所以 c 收敛到 −log Z：模型无需对整个词表求和就能自归一化。**采样 softmax**：从 softmax(x) 抽取目标来学习自由得分 θ，一次用完整的交叉熵（每步 n 个得分），一次用采样 softmax 损失（目标加 m 个按 unigram 抽取的样本，带 logQ 修正）；对目标取平均，完整损失的梯度 p − onehot 等于 softmax(θ) − softmax(x)；采样损失的期望梯度在有限的 m 下一般是另一个向量（甚至与之不平行），但它同样在模型等于数据分布，即 softmax(θ) = softmax(x) 处为零；两者到数据分布的 KL 散度都会下降。Adam 优化，每步 {batch} 个目标；按下按钮才运行。",
    },
    "vocab.train_k": {
        "en": "NCE noise samples k",
        "zh": "NCE 噪声样本数 k",
    },
    "vocab.train_m": {
        "en": "sampled softmax samples m",
        "zh": "采样 softmax 的样本数 m",
    },
    "vocab.train_steps": {
        "en": "training steps",
        "zh": "训练步数",
    },
    "vocab.train_offset": {
        "en": "offset of the logits (log Z)",
        "zh": "logits 的偏移（log Z）",
    },
    "vocab.train_button": {
        "en": "Train now",
        "zh": "开始训练",
    },
    "vocab.train_running": {
        "en": "Training on this machine…",
        "zh": "正在本机训练……",
    },
    "vocab.train_first": {
        "en": "Not trained yet in this session: press the button (a few seconds).",
        "zh": "本次会话尚未训练：按下按钮（需要几秒钟）。",
    },
    "vocab.train_stale": {
        "en": "The settings changed since this run: press the button to train with them.",
        "zh": "设置在这次运行之后有改动：按下按钮用新设置训练。",
    },
    "vocab.train_too_big": {
        "en": "n = {n}: the training demo runs up to n = {limit:,} (Adam on n free scores).",
        "zh": "n = {n}：训练演示只在 n ≤ {limit:,} 时运行（Adam 优化 n 个自由得分）。",
    },
    "vocab.train_c": {
        "en": "learned c",
        "zh": "学到的 c",
    },
    "vocab.train_minus_log_z": {
        "en": "−log Z = {value:.4f}",
        "zh": "−log Z = {value:.4f}",
    },
    "vocab.train_step_axis": {
        "en": "step",
        "zh": "步数",
    },
    "vocab.train_nce_title": {
        "en": "NCE learns c = −log Z (k = {k})",
        "zh": "NCE 学到 c = −log Z（k = {k}）",
    },
    "vocab.train_sampled": {
        "en": "sampled softmax, m = {m}",
        "zh": "采样 softmax，m = {m}",
    },
    "vocab.train_kl_axis": {
        "en": "KL(data ‖ model)",
        "zh": "KL（数据 ‖ 模型）",
    },
    "vocab.train_kl_title": {
        "en": "Learning the scores: full against sampled softmax",
        "zh": "学习得分：完整 softmax 与采样 softmax",
    },
    "vocab.train_note": {
        "en": "After {steps} steps: c = {c} against −log Z = {minus_log_z} (log Z = {log_z}); KL divergence {full} with the full softmax, {sampled} with sampled softmax.",
        "zh": "{steps} 步之后：c = {c}，而 −log Z = {minus_log_z}（log Z = {log_z}）；KL 散度在完整 softmax 下为 {full}，在采样 softmax 下为 {sampled}。",
    },
}
