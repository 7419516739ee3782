#!/usr/bin/env bash
# The Python kit's part of CI (.ci/run), after `npm test` has built the sandbox into dist/:
# a fresh virtual environment, the package installed from python/ with nothing fetched from a
# package index, mypy --strict for Python 3.9 on its sources, then the kit's own suite and the
# worked example's, each starting the freshly built sandbox (CARD_SANDBOX_COMMAND).
#
# The environment is made from Debian's /usr/bin/python3 with --system-site-packages: Debian's
# pytest (7.2) and pytest-xdist (3.1), which .ci/run installs with apt-get, are what it sees.
# A python3 earlier on PATH (pyenv's, say) may have another pytest but no xdist, and no index
# is reachable to install one into it. Override with CARD_SANDBOX_PYTHON.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${CARD_SANDBOX_PYTHON:-/usr/bin/python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export PYTHONDONTWRITEBYTECODE=1

"$PYTHON" -m venv --system-site-packages "$WORK/venv"
"$WORK/venv/bin/pip" install --no-index --no-cache-dir --quiet ./python
"$WORK/venv/bin/python" -c 'import card_sandbox, sys; print("installed:", card_sandbox.__file__)'

mypy --strict --python-version 3.9 --python-executable "$WORK/venv/bin/python" \
  --cache-dir "$WORK/mypy" python/src/card_sandbox

export CARD_SANDBOX_COMMAND="node $PWD/dist/bin/card-sandbox.js"
# two workers: the inner runs mostly wait on processes (and the plugin runs under xdist itself)
(cd python && "$WORK/venv/bin/python" -m pytest -q -n 2)
(cd examples/python-wallet-backend && "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider)
