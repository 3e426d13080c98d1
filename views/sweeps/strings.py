"""The words of the Sweeps page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.sweeps": {
        "en": "Sweeps",
        "zh": "参数扫描",
    },
    "sweeps.intro": {
        "en": "p as the temperature and α vary. Play and the slider run in the browser: no rerun.",
        "zh": "温度与 α 变化时的 p。播放与滑块在浏览器中运行，不会重新执行脚本。",
    },
    "sweeps.temperature": {
        "en": "Temperature",
        "zh": "温度",
    },
    "sweeps.temperature_anim": {
        "en": "p(x / T) for each mapping",
        "zh": "各映射的 p(x / T)",
    },
    "sweeps.entropy_axis": {
        "en": "entropy −Σ p log p",
        "zh": "熵 −Σ p log p",
    },
    "sweeps.entropy_title": {
        "en": "Entropy against temperature",
        "zh": "熵随温度的变化",
    },
    "sweeps.log_n": {
        "en": "log n (uniform)",
        "zh": "log n（均匀）",
    },
    "sweeps.alpha": {
        "en": "α",
        "zh": "α",
    },
    "sweeps.alpha_anim": {
        "en": "α-entmax as α varies",
        "zh": "α 变化时的 α-entmax",
    },
    "sweeps.alpha_axis": {
        "en": "α",
        "zh": "α",
    },
    "sweeps.support_axis": {
        "en": "support size",
        "zh": "支撑集大小",
    },
    "sweeps.support_title": {
        "en": "Support size against α",
        "zh": "支撑集大小随 α 的变化",
    },
    "sweeps.p_alpha_title": {
        "en": "pᵢ against α ({mapping})",
        "zh": "pᵢ 随 α 的变化（{mapping}）",
    },
    "q_sweeps.q": {
        "en": "Lower the temperature T step by step. At which T does sparsemax(x / T) become exactly one-hot?",
        "zh": "逐步降低温度 T，sparsemax(x / T) 在哪个 T 恰好变成 one-hot？",
    },
    "q_sweeps.c0": {
        "en": "never, only in the limit T → 0",
        "zh": "永远不会，只在 T → 0 的极限",
    },
    "q_sweeps.c1": {
        "en": "at T = x₍₁₎ − x₍₂₎, the gap between the two largest logits",
        "zh": "在 T = x₍₁₎ − x₍₂₎，即最大的两个 logit 之差",
    },
    "q_sweeps.c2": {
        "en": "at T = 1",
        "zh": "在 T = 1",
    },
    "q_sweeps.a": {
        "en": "sparsemax(x / T) is one-hot as soon as the gap (x₍₁₎ − x₍₂₎) / T reaches 1, i.e. for T ≤ {gap} here; in the sweep grid the largest one-hot T is {seen}. Softmax at that T still gives the top class only {softmax}: it is one-hot only in the limit.",
        "zh": "只要差值 (x₍₁₎ − x₍₂₎) / T 达到 1，sparsemax(x / T) 就是 one-hot，这里即 T ≤ {gap}；扫描网格中最大的 one-hot 温度为 {seen}。同一温度下 softmax 给最大类别的概率只有 {softmax}：它只在极限下才是 one-hot。",
    },
    "q_sweeps.tied": {
        "en": "The two largest logits are tied, so no temperature makes sparsemax one-hot (both keep p = 1/2 in the limit): pick another preset to see the threshold.",
        "zh": "最大的两个 logit 相等，所以任何温度都不会让 sparsemax 变成 one-hot（极限下两者各为 1/2）：换一个预设来观察阈值。",
    },
}
