"""The words several pages share: language names, the menu's sections, the sidebar and the logit and
mapping controls, messages about bad input, figure and table labels, predict-then-reveal, heavy
runs; registry parameter names and help (the Lessons page's words are in views/lesson/strings.py,
the lesson bar's and the rooms' in explorer/classroom/strings.py). Each key with its English and
its Chinese side by side (a missing Chinese falls back to the English)."""

STRINGS = {
    "lang.en": {
        "en": "English",
        "zh": "English",
    },
    "lang.zh": {
        "en": "中文",
        "zh": "中文",
    },
    "nav.core": {
        "en": "Core",
        "zh": "核心",
    },
    "nav.topics": {
        "en": "Topics",
        "zh": "专题",
    },
    "nav.tools": {
        "en": "Tools",
        "zh": "工具",
    },
    "sb.lang": {
        "en": "Language",
        "zh": "语言",
    },
    "sb.present": {
        "en": "Presentation mode (projector)",
        "zh": "演示模式（投影）",
    },
    "sb.present_help": {
        "en": "Presentation mode: large fonts, thick lines and big markers for a projector.",
        "zh": "演示模式：大字体、粗线条和大标记，适合投影仪。",
    },
    "sb.logits": {
        "en": "Logits",
        "zh": "Logits",
    },
    "sb.preset": {
        "en": "Preset",
        "zh": "预设",
    },
    "preset.custom": {
        "en": "custom (text below)",
        "zh": "自定义（下方文本）",
    },
    "preset.uniform": {
        "en": "uniform",
        "zh": "均匀",
    },
    "preset.one_dominant": {
        "en": "one dominant",
        "zh": "一个占优",
    },
    "preset.two_tied": {
        "en": "two tied",
        "zh": "两个并列",
    },
    "preset.long_tail": {
        "en": "long tail",
        "zh": "长尾",
    },
    "preset.random": {
        "en": "random (seed)",
        "zh": "随机（种子）",
    },
    "sb.n": {
        "en": "n (classes)",
        "zh": "n（类别数）",
    },
    "sb.seed": {
        "en": "seed",
        "zh": "种子",
    },
    "sb.seed_help": {
        "en": "Seed of the random preset and of stochastic mappings (Gumbel noise).",
        "zh": "随机预设与随机映射（Gumbel 噪声）的种子。",
    },
    "sb.logits_text": {
        "en": "logits x",
        "zh": "logits x",
    },
    "sb.logits_help": {
        "en": "Numbers separated by commas or spaces, e.g. 1.2, 0.3, -0.5 (2 to 1000 values).",
        "zh": "用逗号或空格分隔的数，例如 1.2, 0.3, -0.5（2 到 1000 个）。",
    },
    "sb.no_sliders": {
        "en": "n = {n}: per-logit sliders are shown up to n = {top}; edit the text or use a preset.",
        "zh": "n = {n}：滑块只在 n ≤ {top} 时显示；请编辑文本或使用预设。",
    },
    "sb.mappings": {
        "en": "Mappings",
        "zh": "映射",
    },
    "sb.show": {
        "en": "Show",
        "zh": "显示",
    },
    "sb.target": {
        "en": "target class (losses)",
        "zh": "目标类别（损失）",
    },
    "sb.target_help": {
        "en": "Class index t of the losses and of the margin softmax, 0 ≤ t < n.",
        "zh": "损失与间隔 softmax 的类别下标 t，0 ≤ t < n。",
    },
    "sb.used_by": {
        "en": "Used by: {mappings}",
        "zh": "用于：{mappings}",
    },
    "sb.reset": {
        "en": "Reset to defaults",
        "zh": "恢复默认",
    },
    "msg.url_param": {
        "en": "URL parameter {key} ignored: {error}",
        "zh": "已忽略 URL 参数 {key}：{error}",
    },
    "msg.logits": {
        "en": "Logits not used: {error}. Showing the last valid logits.",
        "zh": "未使用这些 logits：{error}。显示上一次有效的 logits。",
    },
    "msg.target": {
        "en": "target class {target} is outside [0, {n}); using 0.",
        "zh": "目标类别 {target} 不在 [0, {n}) 内；改用 0。",
    },
    "msg.param": {
        "en": "{error} ({mappings}): using the last valid value, else the default.",
        "zh": "{error}（{mappings}）：使用上一次有效的值，否则用默认值。",
    },
    "msg.mapping_dropped": {
        "en": "{mapping} is hidden: no valid parameters for these logits.",
        "zh": "已隐藏 {mapping}：这些 logits 下没有有效参数。",
    },
    "jobs.queued": {
        "en": "Waiting in the queue: {ahead} run(s) ahead of yours…",
        "zh": "正在队列中等待：前面还有 {ahead} 个运行……",
    },
    "jobs.running": {
        "en": "Running…",
        "zh": "运行中……",
    },
    "jobs.full": {
        "en": "The server is busy: {pending} runs are waiting already. Try again in a minute.",
        "zh": "服务器繁忙：已有 {pending} 个运行在等待。请一分钟后再试。",
    },
    "guard.too_fast": {
        "en": "Too many updates from this page ({rate:g} a second at most): this one was skipped. Wait a moment; the next change will be shown.",
        "zh": "本页面的更新太频繁（每秒最多 {rate:g} 次）：这次已被跳过。请稍等，下一次改动会正常显示。",
    },
    "msg.mapping_skipped": {
        "en": "{mapping} skipped here: {error}",
        "zh": "此处跳过 {mapping}：{error}",
    },
    "err.n_range": {
        "en": "logits must have {low} to {high} values, got {n}",
        "zh": "logits 须有 {low} 到 {high} 个值，实际 {n} 个",
    },
    "err.logit_limit": {
        "en": "logits must be at most {limit} in absolute value",
        "zh": "logits 的绝对值须不超过 {limit}",
    },
    "err.choice": {
        "en": "{key} must be one of {choices}; got {value}",
        "zh": "{key} 须为 {choices} 之一；实际为 {value}",
    },
    "err.int": {
        "en": "{key} must be an integer, got {value}",
        "zh": "{key} 须为整数，实际为 {value}",
    },
    "err.float": {
        "en": "{key} must be a finite number, got {value}",
        "zh": "{key} 须为有限数，实际为 {value}",
    },
    "err.bool": {
        "en": "{key} must be 1, 0, true or false, got {value}",
        "zh": "{key} 须为 1、0、true 或 false，实际为 {value}",
    },
    "err.range": {
        "en": "{key} must be in [{low}, {high}], got {value}",
        "zh": "{key} 须在 [{low}, {high}] 内，实际为 {value}",
    },
    "err.nonfinite": {
        "en": "the output is not finite for these logits",
        "zh": "这些 logits 下输出不是有限数",
    },
    "ui.download": {
        "en": "Download",
        "zh": "下载",
    },
    "ui.png_hint": {
        "en": "PNG: the camera in the chart's toolbar saves `{name}`",
        "zh": "PNG：点击图表工具栏中的相机图标，保存为 `{name}`",
    },
    "ui.no_alpha": {
        "en": "Select a mapping with a parameter α (α-entmax) to see this.",
        "zh": "选择带参数 α 的映射（α-entmax）后显示。",
    },
    "ui.top_view": {
        "en": "n = {n}: showing the {top} classes with the largest probability under any mapping, sorted by logit.",
        "zh": "n = {n}：只显示在任一映射下概率最大的 {top} 个类别，按 logit 排序。",
    },
    "a11y.chart": {
        "en": "Chart",
        "zh": "图表",
    },
    "a11y.chart_named": {
        "en": "Chart: {name}.",
        "zh": "图表：{name}。",
    },
    "a11y.no_data": {
        "en": "no values drawn",
        "zh": "没有绘制数值",
    },
    "a11y.no_values": {
        "en": "{n} values, none finite",
        "zh": "{n} 个数值，均非有限数",
    },
    "a11y.range": {
        "en": "{n} values from {low} to {high}",
        "zh": "{n} 个数值，从 {low} 到 {high}",
    },
    "a11y.one_zero": {
        "en": "one exact zero",
        "zh": "一个恰为 0 的值",
    },
    "a11y.zeros": {
        "en": "{n} exact zeros",
        "zh": "{n} 个恰为 0 的值",
    },
    "a11y.grid": {
        "en": "{name}: a grid of {rows} × {cols} values from {low} to {high}",
        "zh": "{name}：{rows} × {cols} 个数值的网格，从 {low} 到 {high}",
    },
    "a11y.points": {
        "en": "{name}: {n} points",
        "zh": "{name}：{n} 个点",
    },
    "a11y.table_hint": {
        "en": "Its numbers: Download, CSV.",
        "zh": "其数值：下载，CSV。",
    },
    "fig.exact_zero": {
        "en": "× = exactly 0",
        "zh": "× = 恰为 0",
    },
    "fig.underflow": {
        "en": "○ = > 0, rounds to 0",
        "zh": "○ = 大于 0，舍入为 0",
    },
    "fig.underflow_hover": {
        "en": "p > 0 but computed as 0 (underflow: float64 has no number between 0 and 4.9e-324)",
        "zh": "p > 0 但被算成 0（下溢：float64 在 0 与 4.9e-324 之间没有数）",
    },
    "fig.class_axis": {
        "en": "class i (logit xᵢ)",
        "zh": "类别 i（logit xᵢ）",
    },
    "fig.probability": {
        "en": "probability pᵢ",
        "zh": "概率 pᵢ",
    },
    "fig.mapping": {
        "en": "mapping",
        "zh": "映射",
    },
    "fig.legend": {
        "en": "legend",
        "zh": "图例",
    },
    "fig.simplex_points": {
        "en": "p of each mapping in the simplex",
        "zh": "各映射的 p 在单纯形中的位置",
    },
    "fig.simplex_images": {
        "en": "Image of a grid of logits",
        "zh": "logits 网格的像",
    },
    "fig.simplex_edge": {
        "en": "simplex Δ²",
        "zh": "单纯形 Δ²",
    },
    "fig.euclidean_projection": {
        "en": "Euclidean projection",
        "zh": "欧氏投影",
    },
    "fig.logits_on_plane": {
        "en": "logits x (on the plane Σ = 1)",
        "zh": "logits x（移到 Σ = 1 平面）",
    },
    "fig.projection_title": {
        "en": "Logits and their Euclidean projection (sparsemax)",
        "zh": "logits 与其欧氏投影（sparsemax）",
    },
    "fig.plane_u": {
        "en": "u = (p₀ − p₁)/√2",
        "zh": "u = (p₀ − p₁)/√2",
    },
    "fig.plane_v": {
        "en": "v = (p₀ + p₁ − 2p₂)/√6",
        "zh": "v = (p₀ + p₁ − 2p₂)/√6",
    },
    "fig.analytic": {
        "en": "analytic (probcore)",
        "zh": "解析式（probcore）",
    },
    "fig.autograd": {
        "en": "torch autograd",
        "zh": "torch 自动微分",
    },
    "fig.jac_x": {
        "en": "j (input logit xⱼ)",
        "zh": "j（输入 logit xⱼ）",
    },
    "fig.jac_y": {
        "en": "i (output pᵢ)",
        "zh": "i（输出 pᵢ）",
    },
    "fig.loss": {
        "en": "loss",
        "zh": "损失",
    },
    "fig.descent": {
        "en": "descent step of (x₀ − x₂, x₁ − x₂)",
        "zh": "(x₀ − x₂, x₁ − x₂) 的下降步",
    },
    "fig.current_logits": {
        "en": "current logits",
        "zh": "当前 logits",
    },
    "fig.plane_x02": {
        "en": "x₀ − x₂",
        "zh": "x₀ − x₂",
    },
    "fig.plane_x12": {
        "en": "x₁ − x₂",
        "zh": "x₁ − x₂",
    },
    "fig.play": {
        "en": "Play",
        "zh": "播放",
    },
    "fig.pause": {
        "en": "Pause",
        "zh": "暂停",
    },
    "col.mapping": {
        "en": "mapping",
        "zh": "映射",
    },
    "col.support": {
        "en": "support",
        "zh": "支撑集大小",
    },
    "col.entropy": {
        "en": "entropy",
        "zh": "熵",
    },
    "col.max_p": {
        "en": "max p",
        "zh": "最大 p",
    },
    "col.sum": {
        "en": "Σ p",
        "zh": "Σ p",
    },
    "col.loss_fn": {
        "en": "loss",
        "zh": "损失函数",
    },
    "col.loss": {
        "en": "loss value",
        "zh": "损失值",
    },
    "col.grad": {
        "en": "∇ₓ loss",
        "zh": "∇ₓ 损失",
    },
    "col.max_diff": {
        "en": "max |analytic − autograd|",
        "zh": "最大 |解析 − 自动微分|",
    },
    "col.rank": {
        "en": "rank J",
        "zh": "J 的秩",
    },
    "col.half_l1": {
        "en": "½ ‖J‖₁",
        "zh": "½ ‖J‖₁",
    },
    "col.one_minus_sq": {
        "en": "1 − Σ p²",
        "zh": "1 − Σ p²",
    },
    "sweeps.t_axis": {
        "en": "temperature T",
        "zh": "温度 T",
    },
    "predict.title": {
        "en": "Predict, then reveal",
        "zh": "先预测，再揭晓",
    },
    "predict.guess": {
        "en": "Your guess",
        "zh": "你的猜测",
    },
    "predict.reveal": {
        "en": "Reveal",
        "zh": "揭晓",
    },
    "predict.right": {
        "en": "Right.",
        "zh": "答对了。",
    },
    "predict.wrong": {
        "en": "Not quite: the answer is “{answer}”.",
        "zh": "不完全对：答案是“{answer}”。",
    },
    "param.temperature": {
        "en": "temperature T",
        "zh": "温度 T",
    },
    "ctl.params_of": {
        "en": "Parameters of",
        "zh": "参数所属映射",
    },
    "ctl.no_mappings": {
        "en": "No mapping selected: pick some under Mappings above.",
        "zh": "未选择映射：请在上方“映射”中选择。",
    },
    "ctl.no_loss": {
        "en": "—: probcore has no loss function for {mappings} (the registry names none), so no loss value or gradient is shown.",
        "zh": "—：probcore 没有为 {mappings} 定义损失函数（注册表中未指定），因此不显示损失值与梯度。",
    },
    "param.order": {
        "en": "Taylor order (even)",
        "zh": "泰勒阶数（偶数）",
    },
    "ctl.heatmaps_of": {
        "en": "Heat maps of",
        "zh": "绘制热图的映射",
    },
    "ctl.planes_of": {
        "en": "Loss planes of",
        "zh": "绘制损失平面的映射",
    },
    "param.beta": {
        "zh": "逆温度 β",
    },
    "param.k": {
        "zh": "top k",
    },
    "param.top_p": {
        "zh": "top p",
    },
    "param.noise": {
        "zh": "噪声",
    },
    "param.hard": {
        "zh": "hard（直通估计）",
    },
    "param.margin": {
        "zh": "间隔 m",
    },
    "param.scale": {
        "zh": "尺度 s",
    },
    "help.temperature": {
        "zh": "p = f(x / T)；T 可取任意非零有限值（T < 0 时顺序反转）。T 很小时，保持 logits 顺序的映射趋于 one-hot 的 argmax；Taylor softmax 不保序，它趋于 pᵢ ∝ xᵢᵏ。",
    },
    "help.beta": {
        "zh": "p = softmax(βx)，即以 e^β 为底；β < 0 得到 softmin。温度 T 与 β 只能给一个。",
    },
    "help.order": {
        "zh": "偶数且 ≥ 2：e^x 的偶数阶 Taylor 多项式恒为正。",
    },
    "help.k": {
        "zh": "保留最大的 k 个 logit；k 为 [1, n] 中的整数。k 与 top-p 只能给一个。",
    },
    "help.top_p": {
        "zh": "保留最大的若干项：取 softmax 概率质量之和 ≥ p 的最小集合。",
    },
    "help.alpha": {
        "zh": "α = 1 为 softmax，α = 2 为 sparsemax；α 越大越稀疏。",
    },
    "help.noise": {
        "zh": "ε 的分布：Gumbel 噪声恰好给出 softmax；均匀噪声有界，会给出恰为 0 的概率。",
    },
    "help.hard": {
        "zh": "前向传播取 one-hot 向量，反向传播用软样本的梯度。",
    },
    "help.margin": {
        "zh": "在乘以尺度之前，从目标类的余弦中减去。",
    },
    "help.scale": {
        "zh": "乘在余弦上（相当于逆温度）。",
    },
    "mapping.sparse_softmax": {
        "zh": "稀疏 softmax（top-k / top-p）",
    },
    # issue 25: limits that punish the guilty, lessons that cannot reach outside, one-time teacher links
    "guard.too_fast_client": {
        "en": "Too many updates from this address ({rate:g} a second at most over all its pages): this one was skipped. Wait a moment; the next change will be shown.",
        "zh": "来自此地址的更新太频繁（所有页面合计每秒最多 {rate:g} 次）：这次已被跳过。请稍等，下一次改动会正常显示。",
    },
    "jobs.full_session": {
        "en": "One of your runs is already waiting: it runs first; press again once it has started.",
        "zh": "你已有一个运行在排队：它会先运行；等它开始后再按。",
    },
    "jobs.full_client": {
        "en": "{runs} runs from this address are already waiting: press again once one of them has started.",
        "zh": "来自此地址的 {runs} 个运行已在排队：等其中一个开始后再按。",
    },
}
