"""Drawing: the one colour per mapping (colors), the figure builders several pages share
(figures), the plain-dict figure they return (plain_figure) and the page furniture that puts
them on a page (ui: headers, figure display, predict-then-reveal, fragments)."""
