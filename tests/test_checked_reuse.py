"""explorer.session.state.checked: asked again in the same run with the same inputs, the same checked
controls come back (a page's second part after state.controls does not check every mapping again);
a change of the logits, a parameter or the mappings flag, a call with ``update`` after one without, or a
new run computes them anew."""

from streamlit.testing.v1 import AppTest


def reuse_script():
    import numpy as np
    import streamlit as st

    from explorer.session import state

    state.sidebar()
    state.new_run()
    ss = st.session_state
    first, _ = state.checked()
    again, _ = state.checked()
    st.write(f"same inputs: {again is first}")
    updated, _ = state.checked(update=True)
    st.write(f"update after a plain call: {updated is first}")
    plain, _ = state.checked()
    st.write(f"plain after update: {plain is updated}")
    other, _ = state.checked(mappings=False)
    st.write(f"other mappings flag: {other is updated}")
    ss["preset"], ss["logits"] = "custom", "3, -1, 0.5, 2"
    moved, _ = state.checked()
    st.write(f"new logits: {moved is updated} {moved.logits.tolist()}")
    ss["temperature"] = 2.0
    hotter, _ = state.checked()
    st.write(f"new temperature: {hotter is moved} {hotter.kwargs['softmax']['temperature']}")
    fresh = state._check(True, False)[0]
    same = all(np.array_equal(fresh.probs[k], hotter.probs[k]) for k in fresh.mappings)
    st.write(f"as computed: {fresh.mappings == hotter.mappings and fresh.kwargs == hotter.kwargs and same}")
    ss["logits"] = "1, nope"
    bad, messages = state.checked()
    bad_again, messages_again = state.checked()
    st.write(f"bad text: {bad_again is bad} {messages_again == messages and len(messages) > 0}")
    state.new_run()
    st.write(f"new run: {state.checked()[0] is bad}")


def test_checked_is_reused_for_the_same_inputs_only():
    at = AppTest.from_function(reuse_script, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [m.value for m in at.markdown] == [
        "same inputs: True",
        "update after a plain call: False",
        "plain after update: True",
        "other mappings flag: False",
        "new logits: False [3.0, -1.0, 0.5, 2.0]",
        "new temperature: False 2.0",
        "as computed: True",
        "bad text: True True",
        "new run: False",
    ]
