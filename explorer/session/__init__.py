"""Session and URL state: every control as an Option kept in st.session_state and in the query
string, parsed and checked (state), and the typed accessors of the session keys each concern
owns (keys)."""
