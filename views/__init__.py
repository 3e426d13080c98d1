"""The pages of the explorer, one folder each (views/<page>/: page.py the Streamlit script, and
where the page has them compute.py, figures.py, strings.py), declared in views/registry.py.
Not pages/: Streamlit 1.67 routes a first request for /<name> straight to pages/<name>.py when
that folder exists, bypassing app.py."""
