#!/usr/bin/env bash
# The wheels an image installs offline (%files copies them in; pip inside the build cannot reach PyPI):
# the app wheel, built here, and every file of the flavour's hash-pinned lock (containers/fetch-wheels.sh:
# pyyaml, tqdm, DeepSpeed's source archive and its dependencies, and for the smoke flavour the CPU torch
# wheel with its dependencies and numpy). With SOURCES=DIR they come from DIR/wheelhouse-FLAVOUR, offline.
#   containers/wheelhouse.sh FLAVOUR OUT_DIR [PYTHON]
# PYTHON: 3.6 or newer; from PyPI the locked files come through its pip, 21.3 or newer (with SOURCES, no pip).
set -euo pipefail
flavour=${1:?usage: wheelhouse.sh FLAVOUR OUT_DIR [PYTHON]}
out=${2:?usage: wheelhouse.sh FLAVOUR OUT_DIR [PYTHON]}
python=${3:-python3}
here=$(cd "$(dirname "$0")" && pwd)

rm -rf "$out"
mkdir -p "$out"
# The app's wheel from the checkout as it is, with the standard library alone (imagetool/appwheel.py): pip and
# setuptools on a node's python3 (3.6 to 3.9) cannot build this project, and nothing is written into the checkout
PYTHONPATH="$here:$here/..${PYTHONPATH:+:$PYTHONPATH}" "$python" -S -m imagetool wheel --out "$out"
bash "$here/fetch-wheels.sh" "$flavour" "$out" "$python"
