#!/usr/bin/env bash
# Builds the API reference (mkdocs.yml -> build/api-docs) from probcore's docstrings; --strict
# turns every warning (an unresolved cross-reference, a docstring that does not parse) into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m mkdocs build --strict --quiet "$@"
