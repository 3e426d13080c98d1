"""The words of the Simplex page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.simplex": {
        "en": "Simplex",
        "zh": "单纯形",
    },
    "simplex.intro": {
        "en": "Three classes: every probability vector is a point of the triangle (the simplex).",
        "zh": "三个类别：每个概率向量都是三角形（单纯形）中的一个点。",
    },
    "simplex.need3": {
        "en": "n = {n}: this page uses the first three logits.",
        "zh": "n = {n}：本页使用前三个 logits。",
    },
    "simplex.projection_note": {
        "en": "Sparsemax is the Euclidean projection of the logits onto the simplex: the dashed segment is perpendicular to the edge it meets (or ends at a vertex).",
        "zh": "Sparsemax 是 logits 到单纯形的欧氏投影：虚线段垂直于它到达的边（或止于顶点）。",
    },
    "simplex.images": {
        "en": "Image of a grid of logits",
        "zh": "logits 网格的像",
    },
    "simplex.radius": {
        "en": "grid radius R (logits (u, v, 0), |u|, |v| ≤ R)",
        "zh": "网格半径 R（logits (u, v, 0)，|u|, |v| ≤ R）",
    },
    "simplex.images_note": {
        "en": "41 × 41 logits (u, v, 0) with |u|, |v| ≤ {radius:g}. Softmax stays strictly inside the triangle (a larger radius covers more of it); sparsemax and entmax reach the edges, and the vertices once the radius is large enough (≥ 1 for sparsemax, ≥ 1/(α − 1) for α-entmax: 2 for 1.5-entmax).",
        "zh": "41 × 41 个 logits (u, v, 0)，|u|, |v| ≤ {radius:g}。Softmax 严格留在三角形内部（半径越大，覆盖越多）；sparsemax 与 entmax 能到达边；半径足够大时（sparsemax 需 ≥ 1，α-entmax 需 ≥ 1/(α − 1)，1.5-entmax 即 2）也能到达顶点。",
    },
    "simplex.paths": {
        "en": "Paths",
        "zh": "路径",
    },
    "simplex.temperature_path": {
        "en": "p(x / T) as T goes from 0 to ∞",
        "zh": "T 从 0 到 ∞ 时的 p(x / T)",
    },
    "simplex.temperature_note": {
        "en": "T → 0: the mappings that keep the order of the logits go to the argmax vertex — sparsemax and entmax reach it at a finite T, softmax and top-k with k ≥ 2 only in the limit; Taylor softmax does not keep the order and tends to pᵢ ∝ xᵢᵏ instead. T → ∞: the centre, except top-k (uniform on its k classes) and AM-softmax (the margin stays: softmax of −s·m on the target). Ends of the paths drawn (T = {low:g} → T = {high:g}): {ends}.",
        "zh": "T → 0：保持 logits 大小顺序的映射走向 argmax 顶点——sparsemax 与 entmax 在有限的 T 处到达，softmax 以及 k ≥ 2 的 top-k 只在极限中到达；Taylor softmax 不保序，它趋于 pᵢ ∝ xᵢᵏ。T → ∞：走向中心，但 top-k 走向其 k 个类别上的均匀分布，AM-softmax 的间隔始终存在（目标类减去 s·m 后的 softmax）。图中各路径的端点（T = {low:g} → T = {high:g}）：{ends}。",
    },
    "simplex.alpha_path": {
        "en": "α-entmax as α goes from 1 (softmax) to large",
        "zh": "α 从 1（softmax）增大时的 α-entmax",
    },
    "simplex.alpha_note": {
        "en": "α from 1 to {high}: 1 is softmax, 2 sparsemax; larger α gives sparser outputs.",
        "zh": "α 从 1 到 {high}：1 为 softmax，2 为 sparsemax；α 越大输出越稀疏。",
    },
    "q_simplex.q": {
        "en": "Multiply the logits by 3 (the same as temperature T = 1/3). Where does each point in the triangle move?",
        "zh": "把 logits 乘以 3（相当于温度 T = 1/3），三角形中的每个点会移向哪里？",
    },
    "q_simplex.c0": {
        "en": "towards the centre",
        "zh": "移向中心",
    },
    "q_simplex.c1": {
        "en": "towards a corner or an edge",
        "zh": "移向顶点或边",
    },
    "q_simplex.c2": {
        "en": "it stays where it is",
        "zh": "原地不动",
    },
    "q_simplex.do": {
        "en": "Multiply the logits by 3",
        "zh": "logits 乘以 3",
    },
    "q_simplex.a": {
        "en": "Scaling up the logits sharpens every mapping that keeps their order: the point moves away from the centre; sparsemax and entmax reach an edge (a zero) or a corner (one-hot) at a finite scale, softmax and top-k only approach them. Taylor softmax is the exception: 1 + x + x²/2 is smallest at x = −1, so scaling can change which class is largest. Largest p (its class) and support size now → at 3x: {rows}.",
        "zh": "放大 logits 会让每个保序的映射更尖锐：点远离中心；sparsemax 与 entmax 在有限倍数处到达边（出现 0）或顶点（one-hot），softmax 与 top-k 只是不断接近。Taylor softmax 是例外：1 + x + x²/2 在 x = −1 处最小，放大可能改变哪个类别最大。当前与 3 倍时的最大 p（所在类别）与支撑集大小：{rows}。",
    },
}
