"""probcore's errors: one exception class with a stable id per message.

Every bad argument raises :class:`ProbcoreError`, a ``ValueError`` whose ``code`` is a key of
:data:`MESSAGES` and whose ``fields`` fill that key's template::

    str(err) == MESSAGES[err.code].format(**err.fields)

A field holds the text the message shows (a ``str`` or an ``int``; a value as its ``repr``), or,
where one message wraps another (``value_at``, ``line_column``: field ``error``), the inner
:class:`ProbcoreError` itself. A translation is therefore a template per code filled with
``err.fields`` (translating a nested error in turn); nothing needs to parse the English.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MESSAGES", "ProbcoreError"]

MESSAGES: dict[str, str] = {
    # parameters (probcore._validate, the registry)
    "real": "{name} must be a real number, got {value}",
    "temperature": "temperature must be finite and non-zero (negative gives softmin), got {value}",
    "open_positive": "{name} must be in (0, inf), got {value}",
    "nonnegative": "{name} must be in [0, inf), got {value}",
    "beta": "beta must be finite, got {value}",
    "order": "order must be an even integer >= 2 and <= {high}, got {value}",
    "k": "k must be an integer in [1, {n}] (n = {n}), got {value}",
    "top_p": "top_p must be in (0, 1], got {value}",
    "alpha": "alpha must be a finite real > 0, got {value}",
    "one_of": "{name} must be one of {choices}; got {value}",
    "integer_at_least": "{name} must be an integer >= {low}, got {value}",
    "temperature_or_beta": "give either temperature or beta (beta = 1 / temperature), not both",
    "k_or_top_p": "give exactly one of k (an integer in [1, n]) or top_p (a real in (0, 1])",
    "bool": "{name} must be True or False, got {value}",
    "unknown_param": "unknown parameter {name} for {mapping}; valid: {valid}",
    # tensors given to the mappings (probcore.functional, probcore.jacobian, probcore.reference)
    "x_dtype": "x must be a floating tensor (float16, bfloat16, float32 or float64), got {got}",
    "x_scalar": "x must have at least one dimension (the one mapped), got a 0-d tensor",
    "dim": "dim must be an integer in [{low}, {high}] for this {ndim}-d x, got {value}",
    "x_empty": "x must have at least one entry along dim (n >= 1)",
    "x_vector": "x must be a 1-D array of floats, got shape {shape}",
    "target_dtype": "target must hold integer class indices in [0, {high}], got dtype {dtype}",
    "target_shape": "target must have the shape of x without dim, {shape}, got {got}",
    "target_range": "target must hold class indices in [0, {high}]",
    "target_index": "target must be a class index in [0, {high}], got {value}",
    "alpha_dtype": "alpha must be a real number or a real tensor, got dtype {dtype}",
    "alpha_entries": "alpha must be a finite real > 0 (every entry of the alpha tensor)",
    "alpha_shape": "alpha of shape {shape} does not fit x of shape {x_shape} with dim={dim}: alpha must broadcast to "
    "{kept} (x's shape with size 1 along dim){rows}",
    "fused": "fused must be None (automatic), True or False, got {value}",
    "jacobian_generator": "gumbel_softmax is stochastic: pass generator= (a seeded torch.Generator) to get the "
    "Jacobian of the sample it draws",
    # losses (probcore.losses)
    "ignore_index": "ignore_index must be an integer (or a 0-d integer tensor), got {value}",
    "loss_input": "{name} must be a floating tensor of shape (C,), (N, C) or (N, C, d1, ...), got {got}",
    "loss_target_dtype": "target must be an integer tensor of class indices in [0, {n}), got {got}",
    "loss_target_shape": "target must have shape {shape} ({name}'s shape without its class dimension {class_dim}), "
    "got {got}",
    "loss_target_range": "target must hold class indices in [0, {n}) or ignore_index={ignore_index}, got {value}",
    # reading numbers (probcore.check)
    "not_finite": "{token} is not a finite number",
    "not_a_number": "{token} is not a number",
    "overflows": "{token} overflows float64 (|value| > 1.8e308)",
    "value_at": "{name}: value {i} {error}",
    "line_column": "{name}: line {line}, column {col}: {error}",
    "line_width": "{name}: line {line} has {got} values, expected {width} like the first line",
    "not_text": "{name} must be text, got {type}",
    "empty": "{name} is empty: enter numbers separated by commas, spaces or new lines",
    "max_cols": "{name} must have at most {limit} values per row, got {got}",
    "max_rows": "{name} must have at most {limit} rows, got {got}",
    "max_values": "{name} must hold at most {limit} values in all, got {got}",
    "no_rows": "{name} holds no rows of numbers",
    "not_utf8": "{name} is not UTF-8 text",
    "npy_pickle": "{name} is not a valid .npy file (pickled data is not accepted): {detail}",
    "npy_invalid": "{name} is not a valid .npy file: {detail}",
    "npy_dtype": "{name} must hold a real numeric array (float or int), got dtype {dtype}",
    "npy_shape": "{name} must be a non-empty 1-D (n,) or 2-D (rows, n) array, got shape {shape}",
    "npy_nonfinite": "{name}: row {row}, column {col} is {value}, not a finite number",
    "not_bytes": "file_bytes must be bytes, got {type}",
    "file_size": "{name} must be at most {limit} MiB, got {got} MiB",
    "file_type": "filename must end in .csv or .npy, got {value}",
    "file_suffix": "suffix must be 'csv' or 'npy', got {value}",
    "rows_numeric": "{name} must be a numeric array of shape (n,) or (rows, n)",
    "rows_shape": "{name} must be a non-empty array of shape (n,) or (rows, n), got shape {shape}",
    # checking outputs (probcore.check, probcore.testing)
    "probs_shape": "probs must have the shape of logits {shape}, got {got}",
    "logits_finite": "logits must be finite or -inf (a masked entry), got nan or +inf",
    "stochastic": "mapping must be deterministic to be checked: {mapping} draws random noise, so its output "
    "changes on every call",
    "target_required": "target (a class index, or one per row) is required for mapping {mapping}",
    "target_rows": "target must be one integer class index or {rows} of them (one per row)",
    "target_unused": "target is only used by mappings that need one; {mapping} does not",
    "no_verdicts": "verdicts must hold at least one RowVerdict",
    "skip": "skip must be a collection of case ids among {choices}; got {value}",
    "kit_target": "target is chosen by the kit (one per row); leave it out",
    "dtype": "dtype must be one of {choices}; got {value}",
    # large vocabularies (probcore.vocab)
    "float_tensor": "{name} must be a floating tensor, got {got}",
    "freqs_shape": "freqs must be a 1-D sequence with at least 1 entry, got shape {shape}",
    "freqs_entries": "freqs entries must be in (0, inf), got min {min} (non-finite: {nonfinite})",
    "freqs_count": "freqs must have {n} entries (one per class of tree), got {got}",
    "q_shape": "q must have shape ({n},) or {shape} (that of x), got {got}",
    "q_entries": "q entries must be in (0, 1]: every class needs a positive proposal probability",
    "q_sum": "q must sum to 1 along its last dim (within 1e-4), off by {off_by}",
    "q_batch_shape": "q must have shape (n,) or {batch_shape} + (n,) (batch_shape plus classes), got {got}",
    "broadcast": "{name} must be broadcastable to {to} shape {shape}, got {got}",
    "h_ndim": "h must have at least 1 dim (..., d)",
    "node_vectors_shape": "node_vectors must have shape {shape} (n_classes - 1 internal nodes, d = h.shape[-1]), "
    "got {got}",
    "node_vectors_dtype": "node_vectors dtype {dtype} must match h dtype {h_dtype}",
    "hs_target": "target must be a long tensor of shape {shape} (h without its last dim)",
    "hs_target_range": "target entries must be in [0, {high}]",
    "x_1d": "x must be 1-D (n,), got shape {shape}",
    "x_sampled_ndim": "x_sampled must have shape (..., m) with m >= 1, got {got}",
    "x_sampled_shape": "x_sampled must have shape {shape} + (m,) (x_target plus m samples), got {got}",
    "x_noise_shape": "x_noise must have shape {shape} (x_target plus k = {k} noise samples), got {got}",
    "methods": "methods must be a non-empty subset of {choices}; got {value}",
}


class ProbcoreError(ValueError):
    """A bad argument. ``code``: its stable id (a key of :data:`MESSAGES`); ``fields``: the
    values of the template's placeholders, so that ``str(err)`` is
    ``MESSAGES[code].format(**fields)``. Pickles with its code and fields."""

    code: str
    fields: dict[str, Any]

    def __init__(self, code: str, **fields: Any) -> None:
        self.code = code
        self.fields = fields
        super().__init__(MESSAGES[code].format(**fields))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.code, self.fields))


def _rebuild(cls: type[ProbcoreError], code: str, fields: dict[str, Any]) -> ProbcoreError:
    return cls(code, **fields)
