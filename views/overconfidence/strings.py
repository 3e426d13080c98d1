"""The words of the Why sparse page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.overconfidence": {
        "en": "Why sparse",
        "zh": "为何稀疏",
    },
    "overconfidence.intro": {
        "en": "Why softmax cross-entropy keeps pushing logits apart, and a small live run comparing it with sparse losses.",
        "zh": "为什么 softmax 交叉熵会不断拉大 logit 的差距，以及一个与稀疏损失对比的小型实时训练。",
    },
    "overconfidence.bound": {
        "en": "The logit gap a loss of ε forces",
        "zh": "损失为 ε 时所需的 logit 差距",
    },
    "overconfidence.bound_explain": {
        "en": "Cross-entropy ε = log Σⱼ exp(sⱼ) − sₜ can only be small if the target's share of the mass is large, and every one of the other n − 1 classes keeps at least exp(s_min). So a loss of ε needs a gap s_max − s_min of at least log(n − 1) − log(e^ε − 1): the more classes, the further apart the logits must be pushed, and the loss never reaches 0, so training keeps widening the gap (over-confidence). The top-k sparse softmax loss only normalises over the k largest logits, so the same ε needs a gap of log(k − 1) − log(e^ε − 1) to the k-th largest logit, whatever n is.",
        "zh": "交叉熵 ε = log Σⱼ exp(sⱼ) − sₜ 要小，目标类必须占据大部分质量，而其余 n − 1 个类每个至少分到 exp(s_min)。因此损失为 ε 时，差距 s_max − s_min 至少为 log(n − 1) − log(e^ε − 1)：类别越多，logit 就必须被拉得越开；而损失永远到不了 0，训练会一直扩大这个差距（过度自信）。top-k 稀疏 softmax 损失只在最大的 k 个 logit 上归一化，所以同样的 ε 只要求与第 k 大的 logit 相差 log(k − 1) − log(e^ε − 1)，与 n 无关。",
    },
    "overconfidence.eps": {
        "en": "loss ε",
        "zh": "损失 ε",
    },
    "overconfidence.eps_help": {
        "en": "Target loss value; softmax then gives the target exactly p = e^−ε.",
        "zh": "目标损失值；此时 softmax 给目标类的概率恰为 p = e^−ε。",
    },
    "overconfidence.k": {
        "en": "k (top-k)",
        "zh": "k（top-k）",
    },
    "overconfidence.ce_curve": {
        "en": "softmax cross-entropy: s_max − s_min ≥ log(n − 1) − log(e^ε − 1)",
        "zh": "softmax 交叉熵：s_max − s_min ≥ log(n − 1) − log(e^ε − 1)",
    },
    "overconfidence.topk_curve": {
        "en": "top-{k} sparse softmax: s_max − s₍ₖ₎ ≥ log(k − 1) − log(e^ε − 1)",
        "zh": "稀疏 softmax（top-{k}）：s_max − s₍ₖ₎ ≥ log(k − 1) − log(e^ε − 1)",
    },
    "overconfidence.n_axis": {
        "en": "number of classes n",
        "zh": "类别数 n",
    },
    "overconfidence.gap_axis": {
        "en": "smallest logit gap (which gap: see legend)",
        "zh": "最小 logit 差距（哪一个差距见图例）",
    },
    "overconfidence.bound_title": {
        "en": "Smallest logit gap compatible with loss ε = {eps}",
        "zh": "与损失 ε = {eps} 相容的最小 logit 差距",
    },
    "overconfidence.loss_legend": {
        "en": "loss",
        "zh": "损失",
    },
    "overconfidence.bound_note": {
        "en": "Values from explorer.training.logit_gap_bound. At n = {n} cross-entropy needs s_max − s_min ≥ {ce}; top-{k} needs s_max − s₍ₖ₎ ≥ {topk} (for n ≤ k the two coincide). A loss of ε means pₜ = e^−ε = {p}. A negative bound means no constraint.",
        "zh": "数值来自 explorer.training.logit_gap_bound。n = {n} 时交叉熵要求 s_max − s_min ≥ {ce}；top-{k} 要求 s_max − s₍ₖ₎ ≥ {topk}（n ≤ k 时两者相同）。损失为 ε 意味着 pₜ = e^−ε = {p}。下界为负表示没有约束。",
    },
    "overconfidence.train": {
        "en": "A live training run",
        "zh": "实时训练",
    },
    "overconfidence.train_explain": {
        "en": "A one-hidden-layer network learns a synthetic many-class task (Gaussian clusters, 20 % noisy training labels, clean held-out set), trained full-batch with Adam by four losses: softmax cross-entropy, top-k sparse softmax, sparsemax and 1.5-entmax. Each loss trains once from a random initialisation and once from weights pre-trained with cross-entropy on a related task. The source articles claim that the top-k loss helps when fine-tuning a pre-trained model and hurts when training from scratch; the run below tests that on this small task, and the text under it reports what this run found.",
        "zh": "一个单隐层网络学习一个合成的多类任务（高斯簇，20 % 的训练标签有噪声，测试集干净），用 Adam 全批量训练，分别使用四种损失：softmax 交叉熵、top-k 稀疏 softmax、sparsemax 和 1.5-entmax。每种损失各训练两次：一次从随机初始化开始，一次从在相关任务上用交叉熵预训练过的权重开始。原文认为 top-k 损失有助于微调预训练模型、但会损害从零训练；下面的运行在这个小任务上检验这一点，结果文字报告的是这次运行的实际发现。",
    },
    "overconfidence.steps": {
        "en": "training steps per run",
        "zh": "每次运行的训练步数",
    },
    "overconfidence.classes": {
        "en": "classes",
        "zh": "类别数",
    },
    "overconfidence.train_k": {
        "en": "k of the top-k loss",
        "zh": "top-k 损失的 k",
    },
    "overconfidence.seed": {
        "en": "seed",
        "zh": "随机种子",
    },
    "overconfidence.k_too_big": {
        "en": "k = {k} needs k < classes = {n}: using k = {used}.",
        "zh": "k = {k} 需要小于类别数 {n}：改用 k = {used}。",
    },
    "overconfidence.duration": {
        "en": "8 runs, {updates} full-batch updates in all: about {seconds} s, scaled from the last run measured on this server ({last} s for {last_steps} steps and {last_classes} classes; longer when the server is busier than then).",
        "zh": "共 8 次运行、{updates} 次全批量更新：约 {seconds} 秒，由本服务器上次实测的运行折算（{last_steps} 步、{last_classes} 个类用了 {last} 秒；服务器更忙时更久）。",
    },
    "overconfidence.duration_unmeasured": {
        "en": "8 runs, {updates} full-batch updates in all. No run has been timed on this server yet: the first run's time is measured and shown here.",
        "zh": "共 8 次运行、{updates} 次全批量更新。本服务器上还没有计时过的运行：第一次运行的用时会被测量并显示在这里。",
    },
    "overconfidence.run": {
        "en": "Run",
        "zh": "运行",
    },
    "overconfidence.pretraining": {
        "en": "Pre-training with cross-entropy on the related task…",
        "zh": "正在相关任务上用交叉熵预训练…",
    },
    "overconfidence.progress": {
        "en": "{loss}, {start}: step {step} / {steps}",
        "zh": "{loss}，{start}：第 {step} / {steps} 步",
    },
    "overconfidence.not_run": {
        "en": "Press Run to train (the result stays here while you change other settings).",
        "zh": "点击“运行”开始训练（修改其他设置时结果会保留在这里）。",
    },
    "overconfidence.ran": {
        "en": "Last run: {seconds} s (measured); {steps} steps, {n} classes, k = {k}, seed {seed}.",
        "zh": "上次运行：{seconds} 秒（实测）；{steps} 步，{n} 个类，k = {k}，种子 {seed}。",
    },
    "overconfidence.stale": {
        "en": "The settings above changed since this run: press Run to train with them.",
        "zh": "上面的设置在这次运行之后改过了：点击“运行”以新设置训练。",
    },
    "overconfidence.scratch": {
        "en": "from scratch",
        "zh": "从零训练",
    },
    "overconfidence.pretrained": {
        "en": "pre-trained",
        "zh": "预训练起点",
    },
    "overconfidence.final_line": {
        "en": "Final held-out accuracy, {start}: {accs}.",
        "zh": "最终测试集准确率（{start}）：{accs}。",
    },
    "overconfidence.better": {
        "en": "better than CE by {d} points",
        "zh": "比 CE 高 {d} 个百分点",
    },
    "overconfidence.worse": {
        "en": "worse than CE by {d} points",
        "zh": "比 CE 低 {d} 个百分点",
    },
    "overconfidence.equal": {
        "en": "about equal to CE ({d} points)",
        "zh": "与 CE 大致相同（{d} 个百分点）",
    },
    "overconfidence.topk_scratch": {
        "en": "Top-k from scratch: {cmp} (the articles expect worse).",
        "zh": "top-k 从零训练：{cmp}（原文预期更差）。",
    },
    "overconfidence.topk_pretrained": {
        "en": "Top-k pre-trained: {cmp} (the articles expect better).",
        "zh": "top-k 预训练起点：{cmp}（原文预期更好）。",
    },
    "overconfidence.sparse_line": {
        "en": "Sparsemax and entmax minus CE held-out accuracy: {low} to {high} points over both starts.",
        "zh": "sparsemax 与 entmax 的测试准确率减去 CE：两种起点下为 {low} 到 {high} 个百分点。",
    },
    "overconfidence.gap_line": {
        "en": "Mean logit gap s_max − s_min at the end, from scratch: {gaps}.",
        "zh": "训练结束时的平均 logit 差距 s_max − s_min（从零训练）：{gaps}。",
    },
    "overconfidence.verdict_yes": {
        "en": "This run agrees with the articles' claim: top-k beats CE by at least {tie} point when pre-trained and loses by at least {tie} point from scratch. One seed on a toy task: try other seeds before trusting it.",
        "zh": "这次运行与原文的说法一致：预训练起点下 top-k 比 CE 至少高 {tie} 个百分点，从零训练时至少低 {tie} 个百分点。这只是玩具任务上的一个种子：换几个种子再下结论。",
    },
    "overconfidence.verdict_no": {
        "en": "This run does not reproduce the articles' claim (top-k at least {tie} point better than CE when pre-trained and at least {tie} point worse from scratch). One seed on a toy task: differences of a few points change with the seed.",
        "zh": "这次运行没有复现原文的说法（预训练起点下 top-k 比 CE 至少高 {tie} 个百分点、从零训练时至少低 {tie} 个百分点）。这只是玩具任务上的一个种子：几个百分点的差异会随种子变化。",
    },
    "overconfidence.col_start": {
        "en": "start",
        "zh": "起点",
    },
    "overconfidence.col_loss": {
        "en": "loss",
        "zh": "损失",
    },
    "overconfidence.col_test": {
        "en": "held-out accuracy",
        "zh": "测试集准确率",
    },
    "overconfidence.col_peak": {
        "en": "best held-out accuracy",
        "zh": "最佳测试集准确率",
    },
    "overconfidence.col_train": {
        "en": "training accuracy",
        "zh": "训练集准确率",
    },
    "overconfidence.col_lossv": {
        "en": "training loss",
        "zh": "训练损失",
    },
    "overconfidence.col_gap": {
        "en": "mean s_max − s_min",
        "zh": "平均 s_max − s_min",
    },
    "overconfidence.col_sparsity": {
        "en": "share of exact zeros",
        "zh": "精确为 0 的比例",
    },
    "overconfidence.step_axis": {
        "en": "step",
        "zh": "步数",
    },
    "overconfidence.held_out": {
        "en": " (held-out)",
        "zh": "（测试集）",
    },
    "overconfidence.train_set": {
        "en": " (training set)",
        "zh": "（训练集）",
    },
    "overconfidence.acc_title": {
        "en": "Accuracy (solid: clean held-out set, dotted: noisy training labels)",
        "zh": "准确率（实线：干净的测试集，点线：带噪声的训练标签）",
    },
    "overconfidence.acc_axis": {
        "en": "accuracy",
        "zh": "准确率",
    },
    "overconfidence.loss_title": {
        "en": "Training loss (each loss on its own scale)",
        "zh": "训练损失（各损失的量纲不同）",
    },
    "overconfidence.loss_axis": {
        "en": "loss",
        "zh": "损失",
    },
    "overconfidence.gap_title": {
        "en": "Mean logit gap s_max − s_min on the training set",
        "zh": "训练集上的平均 logit 差距 s_max − s_min",
    },
    "overconfidence.gap_axis2": {
        "en": "s_max − s_min",
        "zh": "s_max − s_min",
    },
    "overconfidence.sparsity_title": {
        "en": "Share of exact zeros in each loss's output distribution",
        "zh": "各损失对应输出分布中精确为 0 的比例",
    },
    "overconfidence.sparsity_axis": {
        "en": "share of pᵢ = 0",
        "zh": "pᵢ = 0 的比例",
    },
    "overconfidence.loss_cross_entropy": {
        "en": "softmax cross-entropy",
        "zh": "softmax 交叉熵",
    },
    "overconfidence.loss_sparse_softmax": {
        "en": "sparse softmax (top-k)",
        "zh": "稀疏 softmax（top-k）",
    },
    "overconfidence.loss_sparsemax": {
        "en": "sparsemax loss",
        "zh": "sparsemax 损失",
    },
    "overconfidence.loss_entmax": {
        "en": "entmax loss",
        "zh": "entmax 损失",
    },
    "overconfidence.plots_note": {
        "en": "Every curve is the run's recorded metrics (explorer.training.compare_losses). Top-k keeps exactly {k} of {n} classes, so its share of zeros is 1 − k/n from the start; softmax never gives a zero.",
        "zh": "每条曲线都是这次运行记录的指标（explorer.training.compare_losses）。top-k 恰好保留 {n} 个类中的 {k} 个，因此从一开始零的比例就是 1 − k/n；softmax 永远不会给出 0。",
    },
    "overconfidence.why_topk": {
        "en": "Why train with top-k softmax",
        "zh": "为什么用 top-k softmax 训练",
    },
    "overconfidence.why_topk_text": {
        "en": "Text generation decodes with beam search or top-k / top-p sampling: each step keeps only the few most likely tokens and treats every other one as probability 0. Softmax trained with cross-entropy never gives a 0, so training and decoding disagree. Sparse (top-k) softmax makes the cut during training too: p is softmax over the k largest logits Ω_k and 0 elsewhere, with the loss log Σᵢ∈Ω_k exp(xᵢ) − xₜ. The price: a cut logit (other than the target's) gets no gradient, so training from scratch learns more slowly; it suits fine-tuning.",
        "zh": "文本生成用 beam search 或 top-k / top-p 采样解码：每一步只保留最可能的少数几个 token，其余的概率都当作 0。用交叉熵训练的 softmax 永远不给出 0，于是训练与解码不一致。稀疏（top-k）softmax 在训练时也做同样的截断：p 是最大的 k 个 logit Ω_k 上的 softmax，其余为 0，损失为 log Σᵢ∈Ω_k exp(xᵢ) − xₜ。代价是：被截断的 logit（目标类别除外）得不到梯度，所以从零训练学得更慢；它适合微调。",
    },
    "overconfidence.why_topk_note": {
        "en": "Logits ({x}), target {target}, k = {k}: softmax puts {mass} of its mass on the {out} classes outside the top k, which top-k decoding drops. On those classes cross-entropy's gradient is ({ce}), the top-k loss's ({topk}) (probcore.losses, autograd).",
        "zh": "logits 为 ({x})，目标类别 {target}，k = {k}：softmax 在 top-k 之外的 {out} 个类别上放了 {mass} 的概率，top-k 解码会把它们丢掉。在这些类别上，交叉熵的梯度为 ({ce})，top-k 损失的梯度为 ({topk})（probcore.losses，自动微分）。",
    },
}
