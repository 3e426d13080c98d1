"""The words of the Margin softmax page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.margin": {
        "en": "Margin softmax",
        "zh": "间隔 softmax",
    },
    "margin.intro": {
        "en": "AM-softmax on 2-D features: C class centres on the unit circle, the class regions with and without a margin, and one feature's loss.",
        "zh": "二维特征上的 AM-softmax：C 个类中心均匀分布在单位圆上，对比有无间隔时的类别区域，以及单个特征的损失。",
    },
    "margin.explain": {
        "en": "Features x and class weights wⱼ are normalised, so the logits are the cosines cos θⱼ. Plain softmax only asks the target cosine to be the largest. AM-softmax subtracts a margin m from the target cosine before scaling by s: during training a feature only counts as done for class t when cos θₜ − m beats every other cosine. That makes the decision boundary stricter for training: each class must win by m, so a band between the regions (grey, no-man's-land) belongs to no class. AM-softmax is still a cross-entropy, so its loss never reaches 0: past the band it becomes small and its pull weak, but it never stops. The scale s sets the sharpness: the target's logit s(cos θₜ − m) ranges over [−s(1 + m), s(1 − m)] and the others' over [−s, s], so a small s cannot make any probability close to 1, a large s turns the loss into a nearly hard decision.",
        "zh": "特征 x 与类别权重 wⱼ 都经过归一化，因此 logit 就是余弦 cos θⱼ。普通 softmax 只要求目标类的余弦最大；AM-softmax 则先从目标余弦中减去间隔 m，再乘以尺度 s：训练时，只有当 cos θₜ − m 仍大于其他所有余弦时，这个特征才算“达标”。这让训练时的决策边界更严格：每个类都必须领先 m，于是各区域之间出现一条不属于任何类的带（灰色的“无人区”）。AM-softmax 本质上仍是交叉熵，损失永远不会到 0：越过这条带之后损失变小、拉力变弱，但不会停止。尺度 s 决定锐利程度：目标类的 logit s(cos θₜ − m) 的取值范围是 [−s(1 + m), s(1 − m)]，其他类的是 [−s, s]，所以 s 太小时任何概率都无法接近 1，s 很大时损失几乎变成硬判决。",
    },
    "margin.classes": {
        "en": "classes C (centres evenly on the unit circle)",
        "zh": "类别数 C（中心均匀分布在单位圆上）",
    },
    "margin.m": {
        "en": "margin m",
        "zh": "间隔 m",
    },
    "margin.s": {
        "en": "scale s",
        "zh": "尺度 s",
    },
    "margin.angle": {
        "en": "feature direction (degrees)",
        "zh": "特征方向（度）",
    },
    "margin.angle_help": {
        "en": "The feature x = (cos a, sin a). Its length does not matter: AM-softmax normalises features, so only the direction enters the cosines.",
        "zh": "特征 x = (cos a, sin a)。长度无关紧要：AM-softmax 会对特征归一化，余弦只取决于方向。",
    },
    "margin.target": {
        "en": "target class t of the feature",
        "zh": "该特征的目标类 t",
    },
    "margin.target_missing": {
        "en": "target class {target} does not exist for C = {classes}: using class 0.",
        "zh": "C = {classes} 时不存在目标类 {target}：改用类 0。",
    },
    "margin.regions": {
        "en": "Class regions without and with the margin",
        "zh": "有无间隔时的类别区域",
    },
    "margin.regions_note": {
        "en": "{grid} × {grid} grid. Without margin every direction belongs to the class with the largest cosine. With m = {m}, {share} % of the directions are in no-man's-land (cos θ₍₁₎ − cos θ₍₂₎ < m); with m = 0 there is none.",
        "zh": "{grid} × {grid} 网格。没有间隔时，每个方向都属于余弦最大的类。m = {m} 时，有 {share} % 的方向落在无人区（cos θ₍₁₎ − cos θ₍₂₎ < m）；m = 0 时没有无人区。",
    },
    "margin.all_none": {
        "en": "With m = {m} and C = {classes} no direction qualifies for any class: even at a class centre the gap to the nearest other centre is only {best}. Training with this margin can never be satisfied.",
        "zh": "m = {m}、C = {classes} 时，没有任何方向能满足任何一类：即使在类中心，与最近的其他中心之间的余弦差也只有 {best}。用这个间隔训练永远无法达标。",
    },
    "margin.point": {
        "en": "One feature: loss and probabilities",
        "zh": "单个特征：损失与概率",
    },
    "margin.cos_t": {
        "en": "cos θₜ (t = {target})",
        "zh": "cos θₜ（t = {target}）",
    },
    "margin.cos_runner": {
        "en": "runner-up cos θⱼ (j = {j})",
        "zh": "次大的 cos θⱼ（j = {j}）",
    },
    "margin.gap": {
        "en": "gap cos θₜ − max cos θⱼ",
        "zh": "差值 cos θₜ − max cos θⱼ",
    },
    "margin.vs_m": {
        "en": "vs m",
        "zh": "相对 m",
    },
    "margin.loss": {
        "en": "AM-softmax loss",
        "zh": "AM-softmax 损失",
    },
    "margin.vs_plain": {
        "en": "vs m = 0",
        "zh": "相对 m = 0",
    },
    "margin.p_t": {
        "en": "AM-softmax pₜ (t = {target})",
        "zh": "AM-softmax pₜ（t = {target}）",
    },
    "margin.status_wrong": {
        "en": "Misclassified even without margin: class {j} has a larger cosine than the target {target}.",
        "zh": "即使没有间隔也分错了：类 {j} 的余弦大于目标类 {target}。",
    },
    "margin.status_counts": {
        "en": "Counts for class {target}: the gap {gap} is at least the margin m = {m}.",
        "zh": "算作类 {target}：差值 {gap} 不小于间隔 m = {m}。",
    },
    "margin.status_between": {
        "en": "In no-man's-land: the plain argmax already says class {target}, but the gap {gap} is below m = {m}, so AM-softmax still gives a large loss and keeps pushing the feature towards its centre.",
        "zh": "位于无人区：普通 argmax 已判为类 {target}，但差值 {gap} 小于 m = {m}，所以 AM-softmax 的损失仍然很大，会继续把特征推向其类中心。",
    },
    "margin.col_class": {
        "en": "class j",
        "zh": "类 j",
    },
    "margin.col_logit": {
        "en": "logit s(cos θⱼ − m[j = t])",
        "zh": "logit s(cos θⱼ − m[j = t])",
    },
    "margin.col_p": {
        "en": "p (AM-softmax, margin m)",
        "zh": "p（AM-softmax，间隔 m）",
    },
    "margin.col_p0": {
        "en": "p (m = 0: softmax(s cos θ))",
        "zh": "p（m = 0：softmax(s cos θ)）",
    },
    "margin.table_note": {
        "en": "Probabilities from probcore.am_softmax; loss from probcore.losses.am_softmax_loss: {loss} with the margin, {loss0} without.",
        "zh": "概率由 probcore.am_softmax 计算，损失由 probcore.losses.am_softmax_loss 计算：有间隔时为 {loss}，无间隔时为 {loss0}。",
    },
    "margin.p_map_note": {
        "en": "Where a feature labelled t gets a high probability for t. Larger s makes the edge sharper; larger m shrinks the bright area away from the neighbours.",
        "zh": "标签为 t 的特征在哪里能得到较高的 t 类概率。s 越大边缘越锐利；m 越大，亮区离相邻类越远、越小。",
    },
    "margin.sweep_note": {
        "en": "The target logit falls linearly with m; where it meets the runner-up (m = gap = {gap}) the target stops winning and the loss grows roughly like s(m − gap) beyond it.",
        "zh": "目标 logit 随 m 线性下降；它与次大 logit 相交处（m = 差值 = {gap}）目标类不再领先，此后损失大约按 s(m − 差值) 增长。",
    },
    "margin.fig_circle": {
        "en": "unit circle",
        "zh": "单位圆",
    },
    "margin.fig_centres": {
        "en": "class centres wⱼ",
        "zh": "类中心 wⱼ",
    },
    "margin.fig_point": {
        "en": "feature x (class {target})",
        "zh": "特征 x（类 {target}）",
    },
    "margin.fig_plain": {
        "en": "without margin: argmax cos θⱼ",
        "zh": "无间隔：argmax cos θⱼ",
    },
    "margin.fig_strict": {
        "en": "with margin m = {m}: counts only if cos θₜ − m ≥ max cos θⱼ",
        "zh": "间隔 m = {m}：仅当 cos θₜ − m ≥ max cos θⱼ 时才算",
    },
    "margin.fig_region": {
        "en": "region",
        "zh": "区域",
    },
    "margin.fig_regions": {
        "en": "region",
        "zh": "区域",
    },
    "margin.fig_none": {
        "en": "none (no-man's-land)",
        "zh": "无（无人区）",
    },
    "margin.fig_class": {
        "en": "class {j}",
        "zh": "类 {j}",
    },
    "margin.fig_pt": {
        "en": "pₜ (t = {target})",
        "zh": "pₜ（t = {target}）",
    },
    "margin.fig_pt_title": {
        "en": "AM-softmax pₜ of a feature labelled {target} (m = {m}, s = {s})",
        "zh": "标签为 {target} 的特征的 AM-softmax pₜ（m = {m}，s = {s}）",
    },
    "margin.fig_loss_m": {
        "en": "AM-softmax loss of the feature",
        "zh": "该特征的 AM-softmax 损失",
    },
    "margin.fig_logits_m": {
        "en": "target logit vs runner-up logit",
        "zh": "目标 logit 与次大 logit",
    },
    "margin.fig_loss": {
        "en": "loss",
        "zh": "损失",
    },
    "margin.fig_target_logit": {
        "en": "s(cos θₜ − m), t = {target}",
        "zh": "s(cos θₜ − m)，t = {target}",
    },
    "margin.fig_runner_logit": {
        "en": "s·cos θⱼ, runner-up j = {j}",
        "zh": "s·cos θⱼ，次大 j = {j}",
    },
    "margin.fig_current_m": {
        "en": "chosen m",
        "zh": "当前 m",
    },
    "margin.fig_gap_m": {
        "en": "m = cos θₜ − max cos θⱼ",
        "zh": "m = cos θₜ − max cos θⱼ",
    },
    "margin.fig_m_axis": {
        "en": "margin m",
        "zh": "间隔 m",
    },
    "margin.fig_logit_axis": {
        "en": "logit",
        "zh": "logit",
    },
    "margin.why": {
        "en": "Why a margin: trained as classification, used for retrieval",
        "zh": "为什么要间隔：按分类训练，按检索使用",
    },
    "margin.why_text": {
        "en": "Margin softmax comes from face recognition, and serves sentence embeddings in NLP: the model is trained as a classifier over the training identities, but used for retrieval, comparing the features of new inputs (often of classes never seen in training) by their cosine. Cross-entropy only asks the target to come first, so a feature may end up just barely inside its class, close to another class. For retrieval the features of one class must be compact and far from the others; the margin asks the target cosine to win by m, which pulls each class together.",
        "zh": "间隔 softmax 源自人脸识别，在 NLP 中用于句向量：模型按训练集中的身份做分类来训练，却用于检索，用余弦比较新输入的特征（常常是训练时没见过的类别）。交叉熵只要求目标类排第一，于是特征可能刚好落在自己类别的边缘，离别的类别很近。检索要求同一类的特征紧凑、远离其他类；间隔要求目标余弦领先 m，从而把每个类收紧。",
    },
    "margin.why_note": {
        "en": "Two classes, s = {s}: for a loss of {loss}, plain softmax cross-entropy on s cos θ needs cos θₜ − cos θⱼ ≥ {plain}; AM-softmax with m = {m} needs ≥ {strict}, exactly m more (the loss is log(1 + e^(−s (gap − m)))). probcore.losses.am_softmax_loss at those gaps: {check}.",
        "zh": "两个类别，s = {s}：要让损失降到 {loss}，在 s cos θ 上的普通 softmax 交叉熵需要 cos θₜ − cos θⱼ ≥ {plain}；m = {m} 的 AM-softmax 需要 ≥ {strict}，恰好多出 m（损失为 log(1 + e^(−s (gap − m)))）。probcore.losses.am_softmax_loss 在这两个差距处的值：{check}。",
    },
}
