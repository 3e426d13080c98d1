#!/usr/bin/env bash
# Installs what the tests need (Python packages; from Debian: Chromium for the browser test,
# HAProxy for the serving test, redis-server for the shared store's tests, nodejs for the browser
# maths' parity test, npm; from the npm registry: axe-core for the accessibility test) and runs every
# test. `--fast` runs the fast tier only (-m "not slow": no browser, no served workers, no whole page
# under AppTest, no test over ~3 s), for the development loop; other arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || missing+=(redis-server)  # tests start their own, on loopback
command -v node >/dev/null || missing+=(nodejs)  # the browser maths' parity test (tests/test_live_parity.py)
command -v npm >/dev/null || missing+=(npm)  # axe-core for the accessibility test (below)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq "${missing[@]}" >/dev/null; fi
fi
python -m pip install -q -r requirements-test.txt
# axe-core from the npm registry into the git-ignored .axe/, for tests/test_a11y_browser.py (the test
# injects it into the page; the app never serves it)
AXE_VERSION=4.14.1
if ! grep -qs "\"version\": \"$AXE_VERSION\"" .axe/node_modules/axe-core/package.json; then
  npm install --no-save --no-package-lock --no-audit --no-fund --silent --prefix .axe "axe-core@$AXE_VERSION"
fi
# probcore itself (editable, no dependencies: they are above), for the `probcore` command's tests
python -m pip install -q --no-deps -e .
# lint (ruff) and type check (mypy on probcore/), then the API reference from the docstrings (mkdocs
# --strict: a warning fails the run)
bash scripts/lint.sh
bash scripts/build_docs.sh
args=()
for arg in "$@"; do
  if [ "$arg" = --fast ]; then args+=(-m "not slow"); else args+=("$arg"); fi
done
python -m pytest -q ${args[@]+"${args[@]}"}
