#!/usr/bin/env bash
# The wheels an image installs offline (%files copies them in; pip inside the build cannot reach PyPI):
# the app wheel, built here, and every file of the flavour's hash-pinned lock (containers/fetch-wheels.sh:
# pyyaml, tqdm, DeepSpeed's source archive and its dependencies, and for the smoke flavour the CPU torch
# wheel with its dependencies and numpy). With SOURCES=DIR they come from DIR/wheelhouse-FLAVOUR, offline.
#   containers/wheelhouse.sh FLAVOUR OUT_DIR [PYTHON]     (PYTHON: one with the app's [image] extra)
set -euo pipefail
flavour=${1:?usage: wheelhouse.sh FLAVOUR OUT_DIR [PYTHON]}
out=${2:?usage: wheelhouse.sh FLAVOUR OUT_DIR [PYTHON]}
python=${3:-python3}
here=$(cd "$(dirname "$0")" && pwd)

rm -rf "$out"
mkdir -p "$out"
# Built from a fresh copy of what the wheel holds: setuptools writes build/ and app.egg-info into the tree it
# builds (a checkout the build job may only read), and reuses build/lib, where a deleted module would linger.
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
cp -r "$here/../pyproject.toml" "$here/../README.md" "$here/../app" "$tree/"
find "$tree/app" -name __pycache__ -prune -exec rm -rf {} +
"$python" -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir "$out" "$tree"
bash "$here/fetch-wheels.sh" "$flavour" "$out" "$python"
