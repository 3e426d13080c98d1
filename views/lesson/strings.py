"""The words of the Lessons page, in the order of its tabs (Play, Room, Write; the lesson bar's and
the rooms' own words are in explorer/classroom/strings.py): each key with its English and its
Chinese side by side (registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.lesson": {
        "en": "Lessons",
        "zh": "课程",
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
    "lesson.goto": {
        "en": "Play the lesson from step {k}",
        "zh": "从第 {k} 步开始播放这节课",
    },
    "lesson.link": {
        "en": "A link that opens this lesson at its first step (change step= for another):",
        "zh": "从第一步打开这节课的链接（修改 step= 可打开其他步骤）：",
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
    "room.teacher_link": {
        "en": "Teacher link (keep it secret)",
        "zh": "教师链接（请保密）",
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
    "room.code": {
        "en": "Room code",
        "zh": "课堂代码",
    },
    "room.join": {
        "en": "Join the room",
        "zh": "加入课堂",
    },
    "room.take_back": {
        "en": "Take back control of your room (teacher)",
        "zh": "收回对你的房间的控制权（教师）",
    },
    "room.pin": {
        "en": "Recovery PIN",
        "zh": "恢复 PIN",
    },
    "room.take_back_button": {
        "en": "Take back control",
        "zh": "收回控制权",
    },
    "room.privacy": {
        "en": "A room holds its code, the lesson and the current step, nothing about the people in it; it ends after {hours} hours without a move by the teacher.",
        "zh": "课堂只保存代码、课程和当前步骤，不保存任何关于参与者的信息；教师 {hours} 小时没有操作后课堂自动结束。",
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
    "author.how": {
        "en": "While a lesson is being written, every page shows “Add this view as a step”: set up a page, press it, then write the narration here.",
        "zh": "编写课程期间，每个页面上都会出现“把此视图添加为一步”：先把页面调好，点击按钮，再回到这里写讲解。",
    },
    "author.new": {
        "en": "Start a new lesson",
        "zh": "新建课程",
    },
    "author.title_en": {
        "en": "Title (English)",
        "zh": "标题（英文）",
    },
    "author.title_zh": {
        "en": "Title (Chinese)",
        "zh": "标题（中文）",
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
    "author.text_en": {
        "en": "Narration (English)",
        "zh": "讲解（英文）",
    },
    "author.text_zh": {
        "en": "Narration (Chinese)",
        "zh": "讲解（中文）",
    },
    "author.question_en": {
        "en": "Question for the class (English, optional)",
        "zh": "给全班的问题（英文，可选）",
    },
    "author.question_zh": {
        "en": "Question for the class (Chinese, optional)",
        "zh": "给全班的问题（中文，可选）",
    },
    "author.answer_en": {
        "en": "Answer, revealed on request (English, optional)",
        "zh": "答案，点击后显示（英文，可选）",
    },
    "author.answer_zh": {
        "en": "Answer, revealed on request (Chinese, optional)",
        "zh": "答案，点击后显示（中文，可选）",
    },
    "author.placeholders": {
        "en": "Placeholders you can use",
        "zh": "可用的占位符",
    },
    "author.placeholders_how": {
        "en": "Numbers in a narration are computed, not typed: a placeholder is replaced by its value at the step's view. `mapping` is a mapping's name (`softmax`, `sparsemax`, `entmax15`, …), `i` and `j` are class indices from 0; add a format with `|`, e.g. `{{p:softmax:0|.4f}}`.",
        "zh": "讲解中的数字是计算出来的，不是手写的：占位符会被替换为它在这一步视图下的值。`mapping` 是映射名（`softmax`、`sparsemax`、`entmax15` 等），`i` 和 `j` 是从 0 开始的类别编号；可用 `|` 指定格式，例如 `{{p:softmax:0|.4f}}`。",
    },
    "author.ph_name": {
        "en": "placeholder",
        "zh": "占位符",
    },
    "author.ph_value": {
        "en": "value at the step's view",
        "zh": "在这一步视图下的值",
    },
    "lesson.ph.n": {
        "en": "number of logits",
        "zh": "logit 的个数",
    },
    "lesson.ph.x": {
        "en": "logit x_i",
        "zh": "第 i 个 logit x_i",
    },
    "lesson.ph.gap": {
        "en": "x_max - x_min",
        "zh": "最大与最小 logit 之差 x_max - x_min",
    },
    "lesson.ph.param": {
        "en": "the step's value of a query parameter",
        "zh": "这一步某个查询参数的值",
    },
    "lesson.ph.p": {
        "en": "p_i of the mapping",
        "zh": "该映射的 p_i",
    },
    "lesson.ph.pmax": {
        "en": "largest p_i",
        "zh": "最大的 p_i",
    },
    "lesson.ph.support": {
        "en": "number of classes with p_i > 0",
        "zh": "p_i > 0 的类别数",
    },
    "lesson.ph.entropy": {
        "en": "Shannon entropy in nats",
        "zh": "香农熵（单位：nat）",
    },
    "lesson.ph.sumsq": {
        "en": "sum of p_i^2",
        "zh": "p_i^2 之和",
    },
    "lesson.ph.trace": {
        "en": "trace of the Jacobian dp/dx",
        "zh": "雅可比矩阵 dp/dx 的迹",
    },
    "lesson.ph.rank": {
        "en": "rank of the Jacobian",
        "zh": "雅可比矩阵的秩",
    },
    "lesson.ph.jac": {
        "en": "Jacobian entry dp_i/dx_j",
        "zh": "雅可比矩阵的元素 dp_i/dx_j",
    },
    "lesson.ph.loss": {
        "en": "the mapping's loss at the target",
        "zh": "该映射在目标类上的损失",
    },
    "lesson.ph.grad": {
        "en": "d loss / d x_i",
        "zh": "d 损失 / d x_i",
    },
    "lesson.ph.margin_p": {
        "en": "AM-softmax p_i with margin (margin page)",
        "zh": "带间隔的 AM-softmax 的 p_i（间隔页面）",
    },
    "lesson.ph.margin_p0": {
        "en": "the same without margin",
        "zh": "同上，不带间隔",
    },
    "lesson.ph.margin_loss": {
        "en": "AM-softmax loss with margin",
        "zh": "带间隔的 AM-softmax 损失",
    },
    "lesson.ph.margin_loss0": {
        "en": "the same without margin",
        "zh": "同上，不带间隔",
    },
    "lesson.ph.attn": {
        "en": "attention weight of key j (first query)",
        "zh": "键 j 的注意力权重（第一个查询）",
    },
    "lesson.ph.attn_max": {
        "en": "largest attention weight (first query)",
        "zh": "最大的注意力权重（第一个查询）",
    },
    "lesson.ph.attn_support": {
        "en": "keys with a nonzero weight (first query)",
        "zh": "权重非零的键数（第一个查询）",
    },
    "lesson.ph.mc_freq": {
        "en": "share of argmax(x + g) over N = perturb_samples Gumbel draws (perturb page)",
        "zh": "在 N = perturb_samples 次 Gumbel 抽样中 argmax(x + g) 取 i 的比例（扰动页面）",
    },
    "lesson.ph.clt": {
        "en": "central-limit expectation of the total variation at that N",
        "zh": "在该 N 下按中心极限定理估计的总变差期望",
    },
    "lesson.ph.gap_bound": {
        "en": "smallest logit gap at cross-entropy oc_eps over n classes",
        "zh": "n 个类别、交叉熵为 oc_eps 时最小的 logit 差距",
    },
    "lesson.ph.gap_bound_topk": {
        "en": "the same for the top-k loss, k = oc_k",
        "zh": "同上，用 top-k 损失，k = oc_k",
    },
    "lesson.ph.hs_sum": {
        "en": "sum of the hierarchical-softmax probabilities",
        "zh": "层次 softmax 概率之和",
    },
    "lesson.ph.hs_expected": {
        "en": "expected Huffman code length (bits)",
        "zh": "霍夫曼编码的期望长度（比特）",
    },
    "lesson.ph.hs_entropy": {
        "en": "entropy of the Zipf frequencies (bits)",
        "zh": "Zipf 频率的熵（比特）",
    },
    "lesson.ph.log2n": {
        "en": "log2 of the vocabulary size",
        "zh": "词表大小的 log2",
    },
    "lesson.ph.check_rows": {
        "en": "rows of the check example with the verdict ok (or mismatch)",
        "zh": "检查示例中判定为 ok（或 mismatch）的行数",
    },
}
