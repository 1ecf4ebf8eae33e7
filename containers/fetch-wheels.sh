#!/usr/bin/env bash
# Every file of FLAVOUR's wheelhouse lock (containers/locks/wheelhouse-FLAVOUR.txt, written by
# containers/lock-wheelhouse.sh) into DEST, each checked against the lock's sha256, nothing else:
#   containers/fetch-wheels.sh FLAVOUR DEST [PYTHON]
# From PyPI (pip's own configuration) with pip --require-hashes (pip 21.3+: it must take the image's wheel tags); or,
# with SOURCES set, copied by name from SOURCES/wheelhouse-FLAVOUR only (`make sources SOURCES=DIR` fills it): no
# network and no pip, so any python3 from 3.6 on does. WHEEL_LOCK names another lock.
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

mirror=${SOURCES:+$SOURCES/wheelhouse-$flavour}
remedy="gather it where there is a network: make sources SOURCES=${SOURCES:-} ARCH=$(arg ARCH)"
# A source mirror means an offline build: where it lacks the wheels, say so rather than try PyPI.
[[ -z $mirror || -d $mirror ]] || die "no $mirror (the locked wheels of $flavour); $remedy"
if [[ -n $mirror ]]; then
    # Each file by the name the lock gives it (what pip wrote there), checked below in DEST: the copy is ours, so
    # what is checked is what the image gets. A file the lock does not name (one an older lock took) stays behind.
    while read -r line; do
        file=${line##*# }
        [[ -f $mirror/$file ]] || die "$mirror/$file is missing (locked in $lock); $remedy"
        cp "$mirror/$file" "$dest/"
    done <"$work/all.txt"
else
    # The platform tags lock-wheelhouse.sh resolved them for (ninja & co. publish manylinux2014 wheels only).
    target=(--only-binary=:all: --python-version "$(arg PYTHON_VERSION)" --platform "$(arg WHEEL_PLATFORM)"
            --platform "manylinux2014_$(arg ARCH)")
    pip_download=("$python" -m pip download --quiet --no-deps --require-hashes --dest "$dest")
    if [[ -s $work/wheels.txt ]]; then "${pip_download[@]}" "${target[@]}" -r "$work/wheels.txt"; fi
    # An sdist needs pip to build its metadata, and so its build backend: only here, where PyPI has one.
    if [[ -s $work/sdists.txt ]]; then "${pip_download[@]}" --no-binary :all: -r "$work/sdists.txt"; fi
fi

# Every file checked like the source archives (containers/scripts/lib.sh fetch_verified); a refused one is removed.
while read -r line; do
    file=${line##*# } want=${line#*--hash=sha256:}
    want=${want%% *}
    [[ -f $dest/$file ]] || die "no $file after the download (locked in $lock); got: $(ls "$dest")"
    got=$(sha256sum "$dest/$file" | cut -d' ' -f1)
    [[ $got == "$want" ]] || { rm -f "$dest/$file"
        die "sha256 mismatch for $file${mirror:+ in $mirror}: the lock $lock has $want, the file $got${mirror:+; $remedy}"; }
done <"$work/all.txt"
