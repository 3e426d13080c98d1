"""The classroom: lessons read from lessons/*.toml (lessons), the bar that plays them above every
page (lesson_bar) and the live rooms a class follows (rooms). It plays the pages, so it reads
the page registry (views/registry.py) and the pages' computations."""
