#!/usr/bin/env bash
# The wheels an image installs offline (%files copies them in; pip inside the build cannot reach PyPI):
# the app wheel, pyyaml, tqdm, and for the smoke flavour the CPU torch wheel (from local disk) with its
# dependencies and numpy. Versions and platform come from `python -m imagetool render --all`.
#   containers/wheelhouse.sh FLAVOUR OUT_DIR [PYTHON]     (PYTHON: one with the app's [image] extra)
set -euo pipefail
flavour=${1:?usage: wheelhouse.sh FLAVOUR OUT_DIR [PYTHON]}
out=${2:?usage: wheelhouse.sh FLAVOUR OUT_DIR [PYTHON]}
python=${3:-python3}
here=$(cd "$(dirname "$0")" && pwd)
args=$(PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" "$python" -m imagetool render --arch "$flavour" --all)
arg() { sed -n "s/^$1=//p" <<<"$args"; }

rm -rf "$out"
mkdir -p "$out"
# setuptools reuses build/lib between builds: clear it so a deleted module cannot linger in the wheel.
rm -rf build/lib build/bdist.*
"$python" -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir "$out" .
rm -rf build/lib build/bdist.*
target=(--only-binary=:all: --python-version "$(arg PYTHON_VERSION)" --platform "$(arg WHEEL_PLATFORM)")
if [[ $(arg FLAVOUR) == smoke ]]; then
    torch_version=$(arg TORCH_VERSION)
    "$python" -m pip download --quiet "${target[@]}" --dest "$out" "torch==$torch_version" numpy pyyaml tqdm
    # An unpinned or missing local wheel would mean PyPI's multi-GB CUDA build: refuse it.
    ls "$out"/torch-"$torch_version"+cpu-*.whl >/dev/null 2>&1 ||
        { echo "error: no CPU torch $torch_version wheel in $out (got: $(ls "$out"/torch-* 2>/dev/null));" \
               "the smoke image needs the local CPU build" >&2; exit 1; }
else
    "$python" -m pip download --quiet "${target[@]}" --dest "$out" pyyaml tqdm
fi
