"""The words of the Attention page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.attention": {
        "en": "Attention",
        "zh": "注意力",
    },
    "attention.intro": {
        "en": "A toy attention step: a query scores a short sequence of keys, a mapping turns the scores into weights, and the output is the weighted sum of the values. Sparse mappings give some keys a weight of exactly zero.",
        "zh": "一个玩具注意力步骤：查询向量给一小段键序列打分，映射把分数变成权重，输出是值向量的加权和。稀疏映射会让部分键的权重恰好为零。",
    },
    "attention.text": {
        "en": "Each key position j gets the score sⱼ = c · q·kⱼ/√d (c: the scale control). Softmax gives every key some weight, however small. Sparsemax, α-entmax and top-k softmax cut the low scores off: a key with weight exactly 0 adds nothing to the output and passes no gradient back, which makes the attention easier to read. Larger c (a lower temperature) concentrates the weights on fewer keys.",
        "zh": "第 j 个键的分数为 sⱼ = c · q·kⱼ/√d（c 由缩放控件给出）。softmax 给每个键都分配一点权重，哪怕很小。sparsemax、α-entmax 和 稀疏 softmax（top-k） 会截掉低分：权重恰为 0 的键对输出毫无贡献，也不回传梯度，注意力因此更容易解读。c 越大（相当于温度越低），权重越集中在少数几个键上。",
    },
    "attention.length": {
        "en": "sequence length L",
        "zh": "序列长度 L",
    },
    "attention.dim": {
        "en": "dimension d",
        "zh": "维度 d",
    },
    "attention.queries": {
        "en": "queries m",
        "zh": "查询个数 m",
    },
    "attention.seed": {
        "en": "page seed (q, K, V)",
        "zh": "本页种子（q、K、V）",
    },
    "attention.seed_help": {
        "en": "Queries, keys and values are N(0, 1) entries drawn in that order from numpy's default_rng(seed).",
        "zh": "查询、键、值的各分量服从 N(0, 1)，按此顺序由 numpy 的 default_rng(seed) 生成。",
    },
    "attention.scale": {
        "en": "score scale c",
        "zh": "分数缩放 c",
    },
    "attention.alpha": {
        "en": "α of α-entmax",
        "zh": "α-entmax 的 α",
    },
    "attention.k": {
        "en": "k of top-k softmax",
        "zh": "top-k softmax 的 k",
    },
    "attention.k_clamped": {
        "en": "k = {k} is larger than L = {L}: using k = {L}.",
        "zh": "k = {k} 大于 L = {L}：改用 k = {L}。",
    },
    "attention.edit": {
        "en": "Edit the query and the keys",
        "zh": "编辑查询与键",
    },
    "attention.query_text": {
        "en": "query q₀ (d numbers; empty = random)",
        "zh": "查询 q₀（d 个数；留空则随机生成）",
    },
    "attention.query_help": {
        "en": "Numbers separated by commas or spaces, e.g. 1, -0.5, 0.3, 2. It replaces the first query.",
        "zh": "用逗号或空格分隔的数，例如 1, -0.5, 0.3, 2。它会替换第一个查询。",
    },
    "attention.query_bad": {
        "en": "Query not used: {error}. Using the random query.",
        "zh": "未使用该查询：{error}。改用随机查询。",
    },
    "attention.query_len": {
        "en": "the query must have d = {d} numbers, got {got}",
        "zh": "查询必须有 d = {d} 个数，实际为 {got} 个",
    },
    "attention.value_limit": {
        "en": "{name} entries must be at most {limit} in absolute value",
        "zh": "{name} 的各分量绝对值不能超过 {limit}",
    },
    "attention.keys_editor": {
        "en": "Keys K (rows: positions j, columns: coordinates); edits last until L, d or the seed change.",
        "zh": "键 K（行：位置 j，列：坐标）；修改 L、d 或种子后编辑会被重置。",
    },
    "attention.keys_bad": {
        "en": "Keys not used: {error}. Using the random keys.",
        "zh": "未使用这些键：{error}。改用随机键。",
    },
    "attention.keys_nonfinite": {
        "en": "every key entry must be a number with absolute value at most {limit}",
        "zh": "键的每个分量都必须是绝对值不超过 {limit} 的数",
    },
    "attention.scores_title": {
        "en": "Scores sⱼ = c · q₀·kⱼ/√d",
        "zh": "分数 sⱼ = c · q₀·kⱼ/√d",
    },
    "attention.score_axis": {
        "en": "score sⱼ",
        "zh": "分数 sⱼ",
    },
    "attention.key_axis": {
        "en": "key position j",
        "zh": "键的位置 j",
    },
    "attention.weights_title": {
        "en": "Attention weights of query q₀ (× = exactly 0)",
        "zh": "查询 q₀ 的注意力权重（× = 恰好为 0）",
    },
    "attention.weight": {
        "en": "weight",
        "zh": "权重",
    },
    "attention.mapping_axis": {
        "en": "mapping",
        "zh": "映射",
    },
    "attention.outputs_title": {
        "en": "Output o = Σⱼ wⱼ vⱼ of query q₀",
        "zh": "查询 q₀ 的输出 o = Σⱼ wⱼ vⱼ",
    },
    "attention.output_axis": {
        "en": "coordinate of o",
        "zh": "o 的坐标",
    },
    "attention.output_value": {
        "en": "oᵢ",
        "zh": "oᵢ",
    },
    "attention.multi_title": {
        "en": "Weights of all {m} queries, one panel per mapping",
        "zh": "全部 {m} 个查询的权重，每个映射一幅图",
    },
    "attention.query_axis": {
        "en": "query",
        "zh": "查询",
    },
    "attention.support_note": {
        "en": "Keys kept (weight > 0) for query q₀: {support}.",
        "zh": "查询 q₀ 保留的键（权重 > 0）：{support}。",
    },
    "attention.taylor": {
        "en": "Taylor softmax: a longer tail, and attention linear in length",
        "zh": "Taylor softmax：更长的尾部，以及随长度线性增长的注意力",
    },
    "attention.taylor_text": {
        "en": "Second-order Taylor softmax replaces eˢ by f(s) = 1 + s + s²/2, which is > 0 for every s: it never falls below ½ (its minimum, at s = −1) and grows again below −1, so low scores keep far more weight than under eˢ: a longer tail, and not a monotone one (a score of −3 outweighs a score of 0). And f of a dot product factors, f(c q·k) = φ(q)·φ(k), with 1 + d + d² features φ(u). So every output oᵢ = Σⱼ f(sᵢⱼ) vⱼ / Σⱼ f(sᵢⱼ) can use two sums over the keys, Σⱼ φ(kⱼ) vⱼᵀ and Σⱼ φ(kⱼ), computed once for all queries: no L × L matrix of scores, and a cost that grows linearly with the sequence length L instead of as L². Linear-attention models such as Based use this e^s ≈ 1 + s + s²/2.",
        "zh": "二阶 Taylor softmax 用 f(s) = 1 + s + s²/2 代替 eˢ，它对任何 s 都 > 0：f 永远不低于 ½（最小值在 s = −1 处），s < −1 时又重新增大，所以低分数比用 eˢ 时保留多得多的权重：尾部更长，而且不单调（分数 −3 的权重超过分数 0）。而且内积的 f 可以分解：f(c q·k) = φ(q)·φ(k)，φ(u) 有 1 + d + d² 个特征。于是每个输出 oᵢ = Σⱼ f(sᵢⱼ) vⱼ / Σⱼ f(sᵢⱼ) 都可以用对键的两个和 Σⱼ φ(kⱼ) vⱼᵀ 与 Σⱼ φ(kⱼ)，它们对所有查询只算一次：不需要 L × L 的分数矩阵，计算量随序列长度 L 线性增长，而不是 L²。Based 等线性注意力模型用的就是 e^s ≈ 1 + s + s²/2。",
    },
    "attention.taylor_note": {
        "en": "Self-attention over L = {L} random positions, d = {d}, c = 1/√d: the linear form equals the quadratic one (probcore.taylor_softmax over the L × L scores) to {diff}. Multiply-adds: {quad} (2 L² d) against {lin} (2 L D (d + 1), D = {D} features); the linear form needs fewer once L > D (d + 1)/d = {even}. The median over queries of the smallest weight: Taylor softmax {tmin}, softmax {smin}.",
        "zh": "在 L = {L} 个随机位置上做自注意力，d = {d}，c = 1/√d：线性形式与二次形式（probcore.taylor_softmax 作用于 L × L 分数）相差 {diff}。乘加次数：{quad}（2 L² d）对 {lin}（2 L D (d + 1)，D = {D} 个特征）；当 L > D (d + 1)/d = {even} 时线性形式更少。各查询最小权重的中位数：Taylor softmax {tmin}，softmax {smin}。",
    },
}
