#!/usr/bin/env bash
# The Python package's tests: builds the extension into a virtual environment with
# `pip install ./python` (the README's install command) and runs pytest on python/tests.
# Installs what it needs from PyPI: maturin, numpy, pytest, networkx, and open-spiel with
# cvxpy (OpenSpiel's value_iteration imports it) so that the OpenSpiel comparisons run.
# The agreement tests run the CLI: target/debug/retrograde (from `cargo test --workspace`,
# else built here), or $RETROGRADE_BIN.
#
#   python/run-tests.sh [pytest arguments]     RETRO_VENV=DIR picks the environment
set -euo pipefail
cd "$(dirname "$0")/.."

venv=${RETRO_VENV:-target/python-venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
venv=$(cd "$venv" && pwd)
# maturin's build hook runs the `maturin` program it finds on the PATH.
export PATH="$venv/bin:$PATH"
py="$venv/bin/python"
"$py" -m pip install -q --disable-pip-version-check maturin numpy pytest networkx open-spiel cvxpy
"$py" -m pip install -q --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./python

if [ -z "${RETROGRADE_BIN:-}" ]; then
  if [ ! -x target/debug/retrograde ]; then
    cargo build -p retrograde-cli
  fi
  export RETROGRADE_BIN="$PWD/target/debug/retrograde"
fi
# From outside python/, so that `import retrograde` is the installed package. `-rs` lists
# every skipped test with its reason in the summary (under CI=true a skip fails instead:
# python/tests/conftest.py).
"$py" -m pytest -q -rs python/tests "$@"
