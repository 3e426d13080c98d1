"""The words of the Lessons page: each key with its English and its Chinese side by side
(registered by views/registry.py; read with explorer.i18n.t)."""

STRINGS = {
    "page.lesson": {
        "en": "Lessons",
        "zh": "课程",
    },
    "lesson.goto": {
        "en": "Play the lesson from step {k}",
        "zh": "从第 {k} 步开始播放这节课",
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
