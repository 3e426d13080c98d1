"""Compare (home) page: page.py is its Streamlit script (run by the navigation, never imported); its
own computations, figures and words sit beside it."""
