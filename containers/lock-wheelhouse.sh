#!/usr/bin/env bash
# Write the wheelhouse lock of FLAVOUR: every file its image installs from PyPI (but the app wheel, built
# here), one `name==version --hash=sha256:... # file` line each, pip's --require-hashes format.
# containers/fetch-wheels.sh downloads exactly these files and nothing else. Needs a network (PyPI, or
# pip's own configuration: this machine's local wheels first); rerun after changing a pin:
#   containers/lock-wheelhouse.sh FLAVOUR [PYTHON]      (`make wheelhouse-lock` runs it for every flavour)
# Versions and platform come from `python -m imagetool render --arch FLAVOUR --all`.
set -euo pipefail
usage="usage: lock-wheelhouse.sh FLAVOUR [PYTHON]     (FLAVOUR: a file name in containers/arch, without .env)"
flavour=${1:?$usage}
python=${2:-python3}
here=$(cd "$(dirname "$0")" && pwd)
lock=$here/locks/wheelhouse-$flavour.txt
args=$(PYTHONPATH="$here:$here/..${PYTHONPATH:+:$PYTHONPATH}" "$python" -m imagetool render --arch "$flavour" --all)
arg() { sed -n "s/^$1=//p" <<<"$args"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Some dependencies (ninja) publish manylinux2014 wheels only, which the smoke flavour's manylinux_2_28 does
# not name (pip matches --platform literally): both are accepted, every image's glibc being newer than 2.17.
target=(--only-binary=:all: --python-version "$(arg PYTHON_VERSION)" --platform "$(arg WHEEL_PLATFORM)"
        --platform "manylinux2014_$(arg ARCH)")
if [[ $(arg FLAVOUR) == smoke ]]; then
    # The CPU torch wheel (its dependencies and numpy come with it); an unpinned torch would be PyPI's CUDA build.
    "$python" -m pip download --quiet "${target[@]}" --dest "$work" "torch==$(arg TORCH_VERSION)" numpy pyyaml tqdm
    ls "$work"/torch-"$(arg TORCH_VERSION)"+cpu-*.whl >/dev/null 2>&1 ||
        { echo "error: no CPU torch $(arg TORCH_VERSION) wheel found; the smoke image needs the CPU build" >&2; exit 1; }
else
    "$python" -m pip download --quiet "${target[@]}" --dest "$work" pyyaml tqdm
fi
# DeepSpeed: PyPI publishes its source only, which the image builds against its own torch
# (containers/scripts/install-python.sh). Its dependencies are those its own requirements.txt lists, but torch;
# nvidia-ml-py joins them where it is built for CUDA (its setup.py adds it then); setuptools 70.1+ builds it.
deepspeed_version=$(arg DEEPSPEED_VERSION)
"$python" -m pip download --quiet --no-deps --no-binary :all: --dest "$work" "deepspeed==$deepspeed_version"
sdist=$work/deepspeed-$deepspeed_version.tar.gz
[[ -f $sdist ]] || { echo "error: no $sdist after pip download (got: $(ls "$work"))" >&2; exit 1; }
mapfile -t requires < <(tar -xzOf "$sdist" "deepspeed-$deepspeed_version/requirements/requirements.txt" |
    grep -Ev '^[[:space:]]*(#|$|torch([<>=!~ ]|$))')
if [[ $(arg WITH_CUDA) == 1 ]]; then requires+=(nvidia-ml-py); fi
"$python" -m pip download --quiet "${target[@]}" --dest "$work" "${requires[@]}" "setuptools>=70.1"

{
    echo "# The $flavour image's wheelhouse: written by containers/lock-wheelhouse.sh $flavour; do not edit."
    echo "# Python $(arg PYTHON_VERSION), $(arg WHEEL_PLATFORM) (and manylinux2014_$(arg ARCH))."
    for file in "$work"/*; do
        name=${file##*/}
        # A wheel is NAME-VERSION-TAGS.whl, an sdist NAME-VERSION.tar.gz (names normalised: _ is -).
        if [[ $name == *.whl ]]; then IFS=- read -r project version _ <<<"$name"
        else base=${name%.tar.gz}; project=${base%-*}; version=${base##*-}; fi
        echo "${project//_/-}==$version --hash=sha256:$(sha256sum "$file" | cut -d' ' -f1)  # $name"
    done
} >"$lock.tmp"
mv "$lock.tmp" "$lock"
echo "wrote $lock ($(grep -c -- --hash= "$lock") files)"
