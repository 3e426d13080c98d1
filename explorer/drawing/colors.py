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


def with_alpha(color: str, alpha: float) -> str:
    """'#RRGGBB' -> 'rgba(r, g, b, alpha)'."""
    r, g, b = (int(color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r}, {g}, {b}, {alpha})"
