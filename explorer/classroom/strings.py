"""The classroom's words: the errors of a lesson file (lessons), the lesson bar above every page
with its authoring buttons, and the live rooms it follows or leads (lesson_bar). Each key with its
English and its Chinese side by side (registered by explorer/classroom/lessons.py; read with
explorer.i18n.t)."""

STRINGS = {
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
    "room.pin_wrong": {
        "en": "This code and PIN do not match a room.",
        "zh": "此代码和 PIN 不对应任何房间。",
    },
    "room.pin_limited": {
        "en": "Too many wrong PINs for this room or from here; try again in {minutes} min.",
        "zh": "此房间或此处输错 PIN 的次数过多，请 {minutes} 分钟后再试。",
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
}
