#!/usr/bin/env bash
# Installs what the tests need (Python packages, Debian's Chromium for the browser test) and
# runs every test. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi
fi
python -m pip install -q -r requirements-test.txt
# probcore itself (editable, no dependencies: they are above), for the `probcore` command's tests
python -m pip install -q --no-deps -e .
python -m pytest -q "$@"
