#!/usr/bin/env bash
# Lint, format check and type check: `ruff check .` (rules in pyproject.toml's [tool.ruff]), `ruff
# format --check .` (the tree is formatted by `ruff format .`; Markdown excluded) and `mypy` with no
# arguments, so it reads its files and settings from pyproject.toml's [tool.mypy]. Both come from
# requirements-test.txt (bash scripts/test.sh installs them). Extra arguments go to ruff.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
python -m ruff check . "$@" || status=1
python -m ruff format --check . || status=1
if python - <<'PY'
import sys, tomllib
sys.exit(0 if "mypy" in tomllib.load(open("pyproject.toml", "rb")).get("tool", {}) else 1)
PY
then
  python -m mypy || status=1
else
  echo "mypy: skipped (pyproject.toml has no [tool.mypy] section yet)"
fi
exit $status
