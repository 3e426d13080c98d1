#!/usr/bin/env bash
# Serve a class: installs HAProxy from Debian (if missing) and the Python packages, then starts N
# Streamlit workers of the explorer behind HAProxy with sticky sessions on one address.
#   bash scripts/serve.sh --workers 2 [--port 8501]      (every option: python -m serve.cluster --help)
# Ctrl-C stops the proxy and every worker.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v haproxy >/dev/null && [ ! -x /usr/sbin/haproxy ]; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq haproxy >/dev/null
  else sudo apt-get update -qq && sudo apt-get install -y -qq haproxy >/dev/null; fi
fi
python -m pip install -q -r requirements.txt
exec python -m serve.cluster "$@"
