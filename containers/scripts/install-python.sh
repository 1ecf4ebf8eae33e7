#!/usr/bin/env bash
# Python side: the app package (and, for the smoke flavour, the CPU torch wheel and its dependencies)
# from the wheelhouse copied in by %files. Offline (--no-index): the build must not reach PyPI.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need FLAVOUR PYTHON TORCH_VERSION

wheelhouse=/opt/app/wheelhouse
ls "$wheelhouse"/app-*.whl >/dev/null 2>&1 || die "no app wheel in the wheelhouse; build it with 'make wheelhouse'"
pip_install=(--no-cache-dir install --no-index --find-links "$wheelhouse")
if [[ $FLAVOUR == smoke ]]; then
    python3 -m venv /opt/venv
    # Everything the wheelhouse holds: torch (CPU), its dependencies, numpy, pyyaml, tqdm and app.
    "$PYTHON" -m pip "${pip_install[@]}" "torch==$TORCH_VERSION" numpy pyyaml tqdm app
else
    # torch, numpy and pyyaml come with the NGC base (its pip constraints pin them); add only app.
    PIP_CONSTRAINT='' "$PYTHON" -m pip "${pip_install[@]}" --no-deps app
    "$PYTHON" -c 'import yaml' || "$PYTHON" -m pip "${pip_install[@]}" pyyaml
    "$PYTHON" -c 'import tqdm' || "$PYTHON" -m pip "${pip_install[@]}" tqdm
fi
found=$("$PYTHON" -c 'import torch; print(torch.__version__)')
# PyPI's wheels report a local label ("2.13.0+cpu", "2.14.1+cu130"): compare the public version part.
[[ $found == "$TORCH_VERSION" || $found == "$TORCH_VERSION+"* ]] ||
    die "torch $found in the image, but containers/versions.env pins $TORCH_VERSION; update the pin or the base"
"$PYTHON" -c 'import app' || die "the app package does not import"
rm -rf "$wheelhouse"
