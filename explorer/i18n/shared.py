"""The words several pages share: language names, the menu's sections, the sidebar and the logit and
mapping controls, messages about bad input, figure and table labels, predict-then-reveal, heavy
runs, the lesson bar, the lesson editor and rooms; registry parameter names and help. Each key with
its English and its Chinese side by side (a missing Chinese falls back to the English)."""

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
    "lesson.where_file": {
        "en": "the file",
        "zh": "文件",
    },
    "lesson.where_step": {
        "en": "step {step} (line {line})",
        "zh": "第 {step} 步（第 {line} 行）",
    },
    "lesson.err.size": {
        "en": "the file is {size} bytes; a lesson file may have at most {limit}",
        "zh": "文件有 {size} 字节；课程文件最多 {limit} 字节",
    },
    "lesson.err.encoding": {
        "en": "the file is not UTF-8 text (first bad byte on line {line})",
        "zh": "文件不是 UTF-8 文本（第一个无效字节在第 {line} 行）",
    },
    "lesson.err.toml": {
        "en": "not valid TOML: {error}",
        "zh": "不是有效的 TOML：{error}",
    },
    "lesson.err.id": {
        "en": "lesson id {id} must be 1 to 40 lower-case letters, digits, - or _",
        "zh": "课程编号 {id} 须为 1 到 40 个小写字母、数字、- 或 _",
    },
    "lesson.err.top_key": {
        "en": "unknown top-level keys: {keys} (allowed: title_en, title_zh, [[step]])",
        "zh": "未知的顶层键：{keys}（允许：title_en、title_zh、[[step]]）",
    },
    "lesson.err.missing": {
        "en": "{where}: missing {keys}",
        "zh": "{where}：缺少 {keys}",
    },
    "lesson.err.type": {
        "en": "{where}: must be {kind}",
        "zh": "{where}：须为 {kind}",
    },
    "lesson.err.long": {
        "en": "{where}: empty or longer than {limit} characters",
        "zh": "{where}：为空或超过 {limit} 个字符",
    },
    "lesson.err.markup": {
        "en": "{where}: markup is not allowed in lesson text (found {text}); write plain Markdown and LaTeX",
        "zh": "{where}：课程文本中不允许使用标记（发现 {text}）；请只写 Markdown 和 LaTeX",
    },
    "lesson.err.steps": {
        "en": "a lesson needs {low} to {high} [[step]] tables",
        "zh": "一节课需要 {low} 到 {high} 个 [[step]] 表",
    },
    "lesson.err.step_key": {
        "en": "{where}: unknown keys {keys} (allowed: page, params, text_en/zh, question_en/zh, answer_en/zh)",
        "zh": "{where}：未知的键 {keys}（允许：page、params、text_en/zh、question_en/zh、answer_en/zh）",
    },
    "lesson.err.page": {
        "en": "{where}: unknown page {page}; pages: {pages}",
        "zh": "{where}：未知页面 {page}；可用页面：{pages}",
    },
    "lesson.err.viewer_key": {
        "en": "{where}: parameter {key} belongs to the viewer or the player, not to a step",
        "zh": "{where}：参数 {key} 属于观看者或播放器，步骤不能设置",
    },
    "lesson.err.param_unknown": {
        "en": "{where}: page {page} has no parameter {key}",
        "zh": "{where}：页面 {page} 没有参数 {key}",
    },
    "lesson.err.placeholder": {
        "en": "unknown placeholder {text}; write {{{{name:arg}}}} with a name from the list “Placeholders you can use” (Lessons → Write a lesson)",
        "zh": "未知占位符 {text}；请写成 {{{{名称:参数}}}}，名称见“可用的占位符”列表（课程 → 编写课程）",
    },
    "lesson.err.arity": {
        "en": "placeholder {text}: {name} takes the arguments {args}",
        "zh": "占位符 {text}：{name} 的参数是 {args}",
    },
    "lesson.err.compute": {
        "en": "placeholder {text} cannot be computed at this step: {error}",
        "zh": "占位符 {text} 在这一步无法计算：{error}",
    },
    "lesson.err.mapping": {
        "en": "unknown mapping {name}; mappings: {choices}",
        "zh": "未知映射 {name}；可用映射：{choices}",
    },
    "lesson.err.index": {
        "en": "index {value} must be an integer from 0 to {high}",
        "zh": "下标 {value} 须为 0 到 {high} 的整数",
    },
    "lesson.err.no_loss": {
        "en": "mapping {name} has no loss",
        "zh": "映射 {name} 没有对应的损失",
    },
    "lesson.err.check": {
        "en": "check_rows needs a check example (check_example) and ok or mismatch",
        "zh": "check_rows 需要一个检查示例（check_example），参数为 ok 或 mismatch",
    },
    "lesson.err.param_name": {
        "en": "no query parameter {key}",
        "zh": "没有查询参数 {key}",
    },
    "lesson.intro": {
        "en": "A teacher's path through the pages: each step opens a page in a prepared state with a short narration. Play one here, follow a teacher in a live room, or write your own.",
        "zh": "教师沿着各个页面设计的一条讲解路线：每一步以预设的状态打开一个页面，并配一段简短讲解。可以在这里播放，也可以在直播课堂中跟随老师，或者自己编写课程。",
    },
    "lesson.tab_play": {
        "en": "Play a lesson",
        "zh": "播放课程",
    },
    "lesson.none": {
        "en": "No lesson found in lessons/.",
        "zh": "lessons/ 中没有课程。",
    },
    "lesson.pick": {
        "en": "Lesson",
        "zh": "课程",
    },
    "lesson.start": {
        "en": "Start the lesson",
        "zh": "开始上课",
    },
    "lesson.link": {
        "en": "A link that opens this lesson at its first step (change step= for another):",
        "zh": "从第一步打开这节课的链接（修改 step= 可打开其他步骤）：",
    },
    "lesson.unknown": {
        "en": "No lesson {id} in lessons/.",
        "zh": "lessons/ 中没有课程 {id}。",
    },
    "lesson.url_view": {
        "en": "This link holds a changed view of the lesson's step; it is kept. Press “Back to the lesson's view” to restore the step.",
        "zh": "这个链接包含对当前步骤视图的修改，已予保留。点击“回到课程视图”可恢复该步骤。",
    },
    "lesson.counter": {
        "en": "step {k} of {n}",
        "zh": "第 {k} 步，共 {n} 步",
    },
    "lesson.prev": {
        "en": "Previous",
        "zh": "上一步",
    },
    "lesson.next": {
        "en": "Next",
        "zh": "下一步",
    },
    "lesson.jump": {
        "en": "Jump to step",
        "zh": "跳到某一步",
    },
    "lesson.back": {
        "en": "Back to the lesson's view",
        "zh": "回到课程视图",
    },
    "lesson.back_help": {
        "en": "Restore every control to this step's state (your changes are dropped).",
        "zh": "把所有控件恢复到这一步的状态（你的修改会被丢弃）。",
    },
    "lesson.leave": {
        "en": "Leave the lesson",
        "zh": "退出课程",
    },
    "lesson.question": {
        "en": "Question",
        "zh": "思考题",
    },
    "lesson.reveal": {
        "en": "Show the answer",
        "zh": "显示答案",
    },
    "room.tab": {
        "en": "Live room",
        "zh": "直播课堂",
    },
    "room.lesson": {
        "en": "Lesson for the room",
        "zh": "课堂使用的课程",
    },
    "room.start": {
        "en": "Start a room (you drive, students follow)",
        "zh": "开设课堂（你来讲，学生跟随）",
    },
    "room.code_title": {
        "en": "Room code",
        "zh": "课堂代码",
    },
    "room.students": {
        "en": "Students open {url}, choose “Live room” and type this code, or open:",
        "zh": "学生打开 {url}，选择“直播课堂”并输入这个代码，或者直接打开：",
    },
    "room.pin_title": {
        "en": "Recovery PIN (for you only)",
        "zh": "恢复 PIN（仅限你自己）",
    },
    "room.pin_once": {
        "en": 'Write this PIN down now and do not project it: if you reload or lose this tab, "Take back control" on this page with the room code and this PIN gives you the room again (every other teacher device loses it). It works once; five wrong PINs lock it for 10 minutes.',
        "zh": "请现在记下这个 PIN，不要投影：如果你刷新或关闭了此标签页，在本页“收回控制权”中输入房间代码和此 PIN 即可重新控制房间（其他教师设备都将失去控制）。它只能使用一次；输错五次将锁定 10 分钟。",
    },
    "room.pin_hide": {
        "en": "I wrote it down: hide the PIN",
        "zh": "我已记下：隐藏 PIN",
    },
    "room.pin_new": {
        "en": "New recovery PIN",
        "zh": "新的恢复 PIN",
    },
    "room.pin_new_help": {
        "en": "Show a new recovery PIN; the earlier one stops working.",
        "zh": "显示新的恢复 PIN；之前的 PIN 将失效。",
    },
    "room.pin": {
        "en": "Recovery PIN",
        "zh": "恢复 PIN",
    },
    "room.take_back": {
        "en": "Take back control of your room (teacher)",
        "zh": "收回对你的房间的控制权（教师）",
    },
    "room.take_back_button": {
        "en": "Take back control",
        "zh": "收回控制权",
    },
    "room.pin_wrong": {
        "en": "This code and PIN do not match a room.",
        "zh": "此代码和 PIN 不对应任何房间。",
    },
    "room.pin_limited": {
        "en": "Too many wrong PINs for this room or from here; try again in {minutes} min.",
        "zh": "此房间或此处输错 PIN 的次数过多，请 {minutes} 分钟后再试。",
    },
    "room.teacher_link": {
        "en": "Teacher link (keep it secret)",
        "zh": "教师链接（请保密）",
    },
    "room.teacher_link_help": {
        "en": "Whoever opens this link drives the room. Do not project it; open it on another device if you need a second control.",
        "zh": "任何打开这个链接的人都能控制课堂。不要投影它；如需第二个控制端，请在另一台设备上打开。",
    },
    "room.code": {
        "en": "Room code",
        "zh": "课堂代码",
    },
    "room.join": {
        "en": "Join the room",
        "zh": "加入课堂",
    },
    "room.privacy": {
        "en": "A room holds its code, the lesson and the current step, nothing about the people in it; it ends after {hours} hours without a move by the teacher.",
        "zh": "课堂只保存代码、课程和当前步骤，不保存任何关于参与者的信息；教师 {hours} 小时没有操作后课堂自动结束。",
    },
    "room.unknown": {
        "en": "No room with the code {code} (codes end when the teacher has not moved for a while).",
        "zh": "没有代码为 {code} 的课堂（教师一段时间没有操作后，代码会失效）。",
    },
    "room.limited": {
        "en": "Too many wrong codes from here; try again in {seconds} s.",
        "zh": "此处输入错误代码的次数过多，请 {seconds} 秒后再试。",
    },
    "room.not_teacher": {
        "en": "This link does not drive room {code}; you follow it as a student.",
        "zh": "这个链接不能控制课堂 {code}；你将以学生身份跟随。",
    },
    "room.unavailable": {
        "en": "Rooms unavailable, retrying… (the shared store does not answer; this page keeps working, and the room resumes by itself when it is back)",
        "zh": "课堂暂时不可用，正在重试…（共享存储没有响应；本页照常可用，存储恢复后课堂会自动继续）",
    },
    "room.gone": {
        "en": "Room {code} has ended.",
        "zh": "课堂 {code} 已结束。",
    },
    "room.following": {
        "en": "Following the teacher in room {code}.",
        "zh": "正在跟随课堂 {code} 的老师。",
    },
    "room.stop": {
        "en": "Explore on my own",
        "zh": "自己探索",
    },
    "room.not_following": {
        "en": "Exploring on your own (the teacher is at step {step} of room {code}).",
        "zh": "你正在自己探索（老师在课堂 {code} 的第 {step} 步）。",
    },
    "room.follow": {
        "en": "Follow the teacher again",
        "zh": "重新跟随老师",
    },
    "room.teacher_line": {
        "en": "You drive room {code}: every following student moves with you.",
        "zh": "你正在主持课堂 {code}：所有跟随的学生都会随你移动。",
    },
    "author.tab": {
        "en": "Write a lesson",
        "zh": "编写课程",
    },
    "author.open": {
        "en": "Open a lesson file (.toml)",
        "zh": "打开课程文件（.toml）",
    },
    "author.open_help": {
        "en": "A lesson file of at most {kib} KiB (a larger one is refused unread).",
        "zh": "课程文件最多 {kib} KiB（更大的文件不读取，直接拒绝）。",
    },
    "author.bad_file": {
        "en": "This lesson file cannot be used: {error}",
        "zh": "无法使用这个课程文件：{error}",
    },
    "author.new": {
        "en": "Start a new lesson",
        "zh": "新建课程",
    },
    "author.how": {
        "en": "While a lesson is being written, every page shows “Add this view as a step”: set up a page, press it, then write the narration here.",
        "zh": "编写课程期间，每个页面上都会出现“把此视图添加为一步”：先把页面调好，点击按钮，再回到这里写讲解。",
    },
    "author.title_en": {
        "en": "Title (English)",
        "zh": "标题（英文）",
    },
    "author.title_zh": {
        "en": "Title (Chinese)",
        "zh": "标题（中文）",
    },
    "author.new_text": {
        "en": "Write what this view shows.",
        "zh": "写下这个视图展示了什么。",
    },
    "author.add_view": {
        "en": "Add this view as a step",
        "zh": "把此视图添加为一步",
    },
    "author.added": {
        "en": "Added: the lesson has {n} steps.",
        "zh": "已添加：这节课现在有 {n} 步。",
    },
    "author.added_one": {
        "en": "Added: the lesson has 1 step.",
        "zh": "已添加：这节课现在有 1 步。",
    },
    "author.draft": {
        "en": "Writing “{title}”: {n} steps.",
        "zh": "正在编写“{title}”：共 {n} 步。",
    },
    "author.draft_one": {
        "en": "Writing “{title}”: 1 step.",
        "zh": "正在编写“{title}”：共 1 步。",
    },
    "author.invalid": {
        "en": "Not yet a valid lesson: {error}",
        "zh": "还不是有效的课程：{error}",
    },
    "author.valid": {
        "en": "A valid lesson of {n} steps.",
        "zh": "有效的课程，共 {n} 步。",
    },
    "author.valid_one": {
        "en": "A valid lesson of 1 step.",
        "zh": "有效的课程，共 1 步。",
    },
    "author.download": {
        "en": "Download the lesson file",
        "zh": "下载课程文件",
    },
    "author.play": {
        "en": "Play it",
        "zh": "播放",
    },
    "author.discard": {
        "en": "Discard",
        "zh": "放弃",
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
    "room.too_many_rooms": {
        "en": "This address has started {rooms} rooms in the last {minutes} minutes: use one of them, or start another later.",
        "zh": "此地址在过去 {minutes} 分钟内已创建 {rooms} 个房间：请使用其中一个，或稍后再创建。",
    },
    "lesson.err.nested": {
        "en": "values nested too deeply",
        "zh": "值的嵌套层数过多",
    },
    "lesson.err.rank_n": {
        "en": "the rank needs an SVD of the n x n Jacobian: n = {n}, at most {high} here (as on the Jacobian page)",
        "zh": "秩需要对 n x n 雅可比矩阵做 SVD：n = {n}，此处最多 {high}（与雅可比页面相同）",
    },
    "lesson.err.placeholders": {
        "en": "the file holds {got} placeholders, at most {limit}",
        "zh": "文件含有 {got} 个占位符，最多 {limit} 个",
    },
    "room.teacher_link_once": {
        "en": "A teacher link opens this room as its teacher once, within 15 minutes, on one device (then it is spent: a copy in a browser history or a proxy log drives nothing). Never project it.",
        "zh": "教师链接只能在 15 分钟内、在一台设备上以教师身份打开本房间一次（之后失效：浏览器历史或代理日志中的副本无法控制房间）。切勿投影。",
    },
    "room.teacher_link_make": {
        "en": "Make a one-time teacher link",
        "zh": "生成一次性教师链接",
    },
    "room.revoke": {
        "en": "Revoke other teacher devices and links",
        "zh": "撤销其他教师设备和链接",
    },
    "room.revoke_help": {
        "en": "Every other device driving this room, and every unused teacher link, loses control; this one keeps it.",
        "zh": "所有其他控制本房间的设备及未使用的教师链接都失去控制权；当前设备保留。",
    },
}
