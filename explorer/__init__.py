"""Streamlit explorer of probcore: shared controls, figures, colours and interface text.

``state`` holds the controls and their URL state, ``compute`` the cached probcore calls,
``figures`` every Plotly figure builder, ``ui`` the helpers that put them on a page,
``colors`` the one colour per mapping, ``i18n`` every interface string.
"""
