#!/usr/bin/env bash
# The wheels an image installs offline (%files copies them in; pip inside the build cannot reach PyPI):
# the app wheel, pyyaml, tqdm, DeepSpeed's source archive and its dependencies, and for the smoke flavour the
# CPU torch wheel (from local disk) with its dependencies and numpy. Versions and platform come from
# `python -m imagetool render --all`.
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
# DeepSpeed: PyPI publishes its source only, which the image builds against its own torch
# (containers/scripts/install-python.sh). Its dependencies are those its own requirements.txt lists, but torch;
# nvidia-ml-py joins them where it is built for CUDA (its setup.py adds it then); setuptools 70.1+ builds it.
deepspeed_version=$(arg DEEPSPEED_VERSION)
"$python" -m pip download --quiet --no-deps --no-binary :all: --dest "$out" "deepspeed==$deepspeed_version"
sdist=$out/deepspeed-$deepspeed_version.tar.gz
[[ -f $sdist ]] || { echo "error: no $sdist after pip download (got: $(ls "$out"))" >&2; exit 1; }
mapfile -t requires < <(tar -xzOf "$sdist" "deepspeed-$deepspeed_version/requirements/requirements.txt" |
    grep -Ev '^[[:space:]]*(#|$|torch([<>=!~ ]|$))')
if [[ $(arg WITH_CUDA) == 1 ]]; then requires+=(nvidia-ml-py); fi
# Some of them (ninja) publish manylinux2014 wheels only, which the smoke flavour's manylinux_2_28 does not name
# (pip matches --platform literally): both are accepted, every image's glibc being newer than 2.17.
"$python" -m pip download --quiet "${target[@]}" --platform "manylinux2014_$(arg ARCH)" --dest "$out" \
    "${requires[@]}" "setuptools>=70.1"
