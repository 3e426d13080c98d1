#!/usr/bin/env bash
# Serve a class: installs HAProxy from Debian (if missing; redis-server too with --store redis) and
# the Python packages, then starts N Streamlit workers of the explorer behind HAProxy with sticky
# sessions on one address.
#   bash scripts/serve.sh --workers 2 [--port 8501]      (every option: python -m serve.cluster --help)
#   bash scripts/serve.sh --workers 2 --store redis --redis-bind 0.0.0.0 --backend hostB:8601   (several
#   machines: one shared Redis; --backend / --no-proxy are refused with the SQLite store, docs/serving.md)
# Ctrl-C stops the proxy, every worker and the Redis it started.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
for arg in "$@"; do
  if [ "$arg" = redis ] || [ "$arg" = --store=redis ]; then
    command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq "${missing[@]}" >/dev/null; fi
fi
python -m pip install -q -r requirements.txt
exec python -m serve.cluster "$@"
