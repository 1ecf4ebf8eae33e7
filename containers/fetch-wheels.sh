#!/usr/bin/env bash
# Every file of FLAVOUR's wheelhouse lock (containers/locks/wheelhouse-FLAVOUR.txt, written by
# containers/lock-wheelhouse.sh) into DEST, each checked against the lock's sha256, nothing else:
#   containers/fetch-wheels.sh FLAVOUR DEST [PYTHON]
# From PyPI (pip's own configuration) with pip --require-hashes; or, with SOURCES set, from SOURCES/wheelhouse-FLAVOUR
# only (`make sources SOURCES=DIR` fills it), touching no network. WHEEL_LOCK names another lock.
set -euo pipefail
usage="usage: fetch-wheels.sh FLAVOUR DEST [PYTHON]"
flavour=${1:?$usage}
dest=${2:?$usage}
python=${3:-python3}
here=$(cd "$(dirname "$0")" && pwd)
lock=${WHEEL_LOCK:-$here/locks/wheelhouse-$flavour.txt}
die() { echo "error: $*" >&2; exit 1; }
[[ -f $lock ]] || die "no wheelhouse lock $lock; write it on a machine with a network: make wheelhouse-lock"
args=$(PYTHONPATH="$here:$here/..${PYTHONPATH:+:$PYTHONPATH}" "$python" -m imagetool render --arch "$flavour" --all)
arg() { sed -n "s/^$1=//p" <<<"$args"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Each lock line: NAME==VERSION --hash=sha256:HEX  # FILE
grep -E '^[^#[:space:]]' "$lock" >"$work/all.txt" || die "$lock lists no file; rewrite it: make wheelhouse-lock"
grep -v '\.tar\.gz$' "$work/all.txt" >"$work/wheels.txt" || true
grep '\.tar\.gz$' "$work/all.txt" >"$work/sdists.txt" || true
mkdir -p "$dest"
# The platform tags lock-wheelhouse.sh resolved them for (ninja & co. publish manylinux2014 wheels only).
target=(--only-binary=:all: --python-version "$(arg PYTHON_VERSION)" --platform "$(arg WHEEL_PLATFORM)"
        --platform "manylinux2014_$(arg ARCH)")
pip_download=("$python" -m pip download --quiet --no-deps --require-hashes --dest "$dest")

mirror=${SOURCES:+$SOURCES/wheelhouse-$flavour}
# A source mirror means an offline build: where it lacks the wheels, say so rather than try PyPI.
[[ -z $mirror || -d $mirror ]] ||
    die "no $mirror (the locked wheels of $flavour); gather it where there is a network: make sources SOURCES=$SOURCES ARCH=$(arg ARCH)"
if [[ -n $mirror ]]; then
    while read -r line; do
        file=${line##*# }
        [[ -f $mirror/$file ]] ||
            die "$mirror/$file is missing (locked in $lock); gather it where there is a network: make sources SOURCES=$SOURCES ARCH=$(arg ARCH)"
    done <"$work/all.txt"
    if [[ -s $work/wheels.txt ]]; then
        "${pip_download[@]}" --no-index --find-links "$mirror" "${target[@]}" -r "$work/wheels.txt"
    fi
    # An sdist is copied, not handed to pip: pip would build its metadata, which needs its build backend.
    while read -r line; do cp "$mirror/${line##*# }" "$dest/"; done <"$work/sdists.txt"
else
    if [[ -s $work/wheels.txt ]]; then "${pip_download[@]}" "${target[@]}" -r "$work/wheels.txt"; fi
    if [[ -s $work/sdists.txt ]]; then "${pip_download[@]}" --no-binary :all: -r "$work/sdists.txt"; fi
fi

# Every file checked like the source archives (containers/scripts/lib.sh fetch_verified), the copied sdists too.
while read -r line; do
    file=${line##*# } want=${line#*--hash=sha256:}
    want=${want%% *}
    [[ -f $dest/$file ]] || die "pip gave no $file (locked in $lock); got: $(ls "$dest")"
    echo "$want  $dest/$file" | sha256sum --check --status ||
        die "sha256 mismatch for $file: the lock $lock has $want, the file $(sha256sum "$dest/$file" | cut -d' ' -f1)"
done <"$work/all.txt"
