"""One colour per mapping, the same on every page.

Mid-luminance colours that keep contrast against both the light and the dark Streamlit
background (no yellow, no near-white, no near-black).
"""
from __future__ import annotations

MAPPING_COLORS = {
    "softmax": "#4C78A8",
    "taylor_softmax": "#F58518",
    "sparse_softmax": "#54A24B",
    "sparsemax": "#E45756",
    "entmax15": "#B279A2",
    "entmax": "#2CA6A4",
    "perturbmax": "#9D755D",
    "gumbel_softmax": "#E377C2",
    "am_softmax": "#9A9A2A",
}
# Mappings added to the registry later get one of these (stable per name).
_SPARE = ("#6F8FCF", "#D67F3A", "#3E9E7E", "#C05780", "#8C8C8C")

# Curves that are not a registry mapping (binary-loss comparison, alpha = inf limit).
EXTRA_COLORS = {
    "hinge": "#8C8C8C",
    "logistic": "#4C78A8",
    "modified_huber": "#E45756",
    "argmax": "#8C8C8C",
}


def mapping_color(name: str) -> str:
    """The colour of mapping ``name`` (a spare colour, stable per name, for unknown ones)."""
    return MAPPING_COLORS.get(name) or _SPARE[sum(map(ord, name)) % len(_SPARE)]


# A second cue beside the colour (WCAG 1.4.1): a dash pattern for lines, a marker shape for points.
MAPPING_CUES = {
    "softmax": ("none", "circle"),
    "taylor_softmax": ("8 3", "square"),
    "sparse_softmax": ("2 3", "diamond"),
    "sparsemax": ("10 3 2 3", "triangle-up"),
    "entmax15": ("5 5", "triangle-down"),
    "entmax": ("12 4", "cross"),
    "perturbmax": ("2 2 8 2", "x"),
    "gumbel_softmax": ("1 4", "star"),
    "am_softmax": ("6 2 2 2 2 2", "hexagon"),
}
_SPARE_CUES = (("4 2", "circle"), ("3 6", "square"), ("9 3 3 3", "diamond"), ("1 2", "star"), ("7 2 1 2", "hexagon"))


def mapping_cue(name: str) -> dict[str, str]:
    """The non-colour cue of mapping ``name``: {"dash": an SVG stroke-dasharray ("none": solid),
    "marker": circle|square|diamond|triangle-up|triangle-down|cross|x|star|hexagon}; stable per name."""
    dash, marker = MAPPING_CUES.get(name) or _SPARE_CUES[sum(map(ord, name)) % len(_SPARE_CUES)]
    return {"dash": dash, "marker": marker}


def with_alpha(color: str, alpha: float) -> str:
    """'#RRGGBB' -> 'rgba(r, g, b, alpha)'."""
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"
