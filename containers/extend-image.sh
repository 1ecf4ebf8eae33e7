#!/usr/bin/env bash
# extend-image.sh IMAGE WHEELS OUT [PACKAGES]: a copy of IMAGE with your Python packages, built from the wheels in
# the directory WHEELS alone (no index). `make image-extend` calls it; docs/packages.md says how to gather the wheels.
#   PACKAGES  the names to install, space-separated (default: the project of every wheel in WHEELS; those the
#             image has keep the image's version, and their wheels go unused)
#   APPTAINER [apptainer]   APPTAINER_BUILD_FLAGS []   SQUASHFS_ARGS [-comp zstd -Xcompression-level 3]
#   APP_PROBE_ROOT [empty]  a directory standing for / in the binfmt_misc probe (the tests' fake machine)
# Exit codes: 0 built; 2 bad input (the message says which and how to fix it); otherwise apptainer's.
set -euo pipefail

extend::die() {
    printf 'image-extend: error: %s\n' "$*" >&2
    exit 2
}

extend::usage() {
    extend::die "$*; usage: make image-extend IMAGE=app.sif WHEELS=wheels/ OUT=my.sif [PACKAGES='accelerate']"
}

# extend::project WHEEL_FILE: a wheel's project name, normalised (PEP 427: NAME-VERSION[-BUILD]-PY-ABI-PLATFORM.whl;
# PEP 503: lower case, runs of -_. as one -).
extend::project() {
    local -r name=${1##*/}
    local project=${name%%-*}
    project=${project,,}
    printf '%s\n' "${project//[_.]/-}"
}

# extend::arch NAME: one name per architecture, uname -m's (OCI's and Debian's amd64 and arm64 too: the aliases of
# app/check/node/arch.py)
extend::arch() {
    local -r name=${1,,}
    case $name in
        x86_64 | amd64) echo x86_64 ;;
        aarch64 | arm64) echo aarch64 ;;
        *) echo "$name" ;;
    esac
}

# extend::emulated ARCH BINFMT_DIR: true where QEMU user emulation for ARCH is registered in BINFMT_DIR and enabled
# (the entry's first line; qemu-user-static names it qemu-ARCH, as containers/imagetool/buildhost.py reads it)
extend::emulated() {
    local -r arch=$1 dir=$2
    local entry
    for entry in "$dir/qemu-$arch" "$dir/qemu-$arch-static"; do
        [[ -r $entry && $(sed -n 1p "$entry") == enabled ]] && return 0
    done
    return 1
}

# extend::word TEXT: TEXT as one shell word inside the double-quoted --wrap of the message (single quotes where
# it holds more than letters, digits and / . _ + - =)
extend::word() {
    local -r text=$1
    if [[ $text =~ ^[A-Za-z0-9/._+=-]+$ ]]; then printf '%s' "$text"; else printf "'%s'" "$text"; fi
}

# extend::gather_hint RUNTIME IMAGE WHEELS: the commands that gather into WHEELS the wheels a package needs and IMAGE
# lacks (containers/gather-wheels.py, docs/packages.md; a plain `pip download` fetches torch and every CUDA wheel
# too), for the image's Python and platform as the labels `make image` writes give them (app.installed.python,
# app.arch), else as placeholders that say where to read them
extend::gather_hint() {
    local -r runtime=$1 image=$2 wheels=$3
    local labels python='<python3 -V in the image: MAJOR.MINOR>' arch='<uname -m in the image>'
    labels=$("$runtime" inspect --labels "$image" 2>/dev/null) || labels=
    [[ $labels =~ (^|$'\n')app\.installed\.python:[[:space:]]*([0-9]+\.[0-9]+) ]] && python=${BASH_REMATCH[2]}
    [[ $labels =~ (^|$'\n')app\.arch:[[:space:]]*([^[:space:]]+) ]] && arch=$(extend::arch "${BASH_REMATCH[2]}")
    local -r words=("gather only what the image lacks (docs/packages.md): $(extend::word "$runtime") exec $image"
        "python3 -m pip list --format=freeze > image-packages.txt (where the image runs), then python3"
        "$here/gather-wheels.py --image-packages image-packages.txt --python-version $python --platform"
        "manylinux2014_$arch -d $wheels PACKAGE (a project of yours: pip wheel --no-deps -w $wheels PATH)")
    printf '%s' "${words[*]}"
}

(($# >= 3 && $# <= 4)) || extend::usage "expected IMAGE WHEELS OUT [PACKAGES], got $# argument(s)"
image=$1 wheels=$2 out=$3 packages=${4:-}
[[ -n $image && -f $image ]] ||
    extend::usage "IMAGE='$image' is not a file (build it with make image, or give its path)"
[[ -n $wheels && -d $wheels ]] || extend::usage "WHEELS='$wheels' is not a directory of wheels"
[[ -n $out ]] || extend::usage "OUT is empty: name the image to write"
image=$(realpath -- "$image") wheels=$(realpath -- "$wheels")
out_dir=$(dirname -- "$out")
[[ -d $out_dir && -w $out_dir ]] || extend::usage "OUT=$out: directory $out_dir is missing or not writable"
out=$(realpath -- "$out_dir")/${out##*/}
[[ $out != "$image" ]] || extend::usage "OUT is IMAGE ($image): write the extended image under another name"
# %files copies WHEELS with the build's own syntax: a path with spaces or Apptainer's separators would split
[[ $wheels =~ ^[A-Za-z0-9/._+-]+$ && $image =~ ^[A-Za-z0-9/._+-]+$ ]] ||
    extend::usage "IMAGE and WHEELS must be paths of letters, digits and / . _ + - only ($image, $wheels)"

here=$(dirname -- "$(realpath -- "$0")")
apptainer=${APPTAINER:-apptainer}
shopt -s nullglob
files=("$wheels"/*.whl)
shopt -u nullglob
((${#files[@]})) || extend::usage "no .whl file in WHEELS=$wheels; $(extend::gather_hint "$apptainer" "$image" "$wheels")"
if [[ -z $packages ]]; then
    packages=$(for file in "${files[@]}"; do extend::project "$file"; done | sort -u | paste -sd' ' -)
fi
read -ra names <<<"$packages"
((${#names[@]})) || extend::usage "PACKAGES is empty"
for name in "${names[@]}"; do
    # A name, optionally pinned: nothing else reaches the build's shell
    [[ $name =~ ^[A-Za-z0-9][A-Za-z0-9._-]*(==[A-Za-z0-9.+!_-]+)?$ ]] ||
        extend::usage "PACKAGES item '$name' is not a package name (or NAME==VERSION); example: PACKAGES='accelerate'"
done

command -v "$apptainer" >/dev/null || extend::die "$apptainer not found in PATH; load it (module load apptainer)" \
    "or set APPTAINER=/path/to/apptainer"

# extend.def is a templated definition ({{ IMAGE }}, --build-arg): Apptainer 1.2.0 and SingularityCE 4.0.0 brought
# them (their CHANGELOGs; containers/imagetool/apptainer.py MINIMUM says the same for `make image`); an older
# release stops at the first {{ with a parse error after the user has waited for nothing.
version_line=$("$apptainer" --version 2>&1 | sed -n 1p) || true
case $version_line in
    singularity*) product=SingularityCE minimum=(4 0 0) ;;  # "singularity-ce version 4.1.2", "singularity version 3.8.7"
    *) product=Apptainer minimum=(1 2 0) ;;
esac
wanted="$product >= ${minimum[0]}.${minimum[1]}.${minimum[2]}"
newer="load a newer one ('module avail apptainer') or set APPTAINER=/path/to/apptainer"
[[ $version_line =~ ([0-9]+)\.([0-9]+)(\.([0-9]+))? ]] ||
    extend::die "'$apptainer --version' printed '$version_line', no version; the extension needs $wanted: $newer"
found=("${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[4]:-0}")
for i in 0 1 2; do
    ((10#${found[i]} == minimum[i])) && continue
    ((10#${found[i]} > minimum[i])) && break
    extend::die "$product ${BASH_REMATCH[0]} cannot read extend.def's templated definition ({{ }}, --build-arg;" \
        "needs $wanted): $newer"
done
# The build runs the image's own Python (extend.def's %post): an image of another architecture runs only where QEMU
# is registered for it, else Apptainer stops late, in %post, with "exec format error". The label is the one
# `make image` writes (containers/app.def %labels; not org.label-schema.build-arch, the build host's).
binfmt_dir=${APP_PROBE_ROOT:-}/proc/sys/fs/binfmt_misc
labels=$("$apptainer" inspect --labels "$image" 2>/dev/null) || labels=
if [[ $labels =~ (^|$'\n')app\.arch:[[:space:]]*([^[:space:]]+) ]]; then
    image_arch=$(extend::arch "${BASH_REMATCH[2]}") machine_arch=$(extend::arch "$(uname -m)")
    if [[ $image_arch != "$machine_arch" ]] && ! extend::emulated "$image_arch" "$binfmt_dir"; then
        job="make -C $(dirname -- "$here") image-extend IMAGE=$image WHEELS=$wheels OUT=$(extend::word "$out")"
        [[ -z ${4:-} ]] || job+=" PACKAGES=$(extend::word "$4")"
        [[ $apptainer == apptainer ]] || job+=" APPTAINER=$(extend::word "$apptainer")"
        extend::die "IMAGE=$image is an $image_arch image and this machine is $machine_arch with no QEMU registered" \
            "for $image_arch ($binfmt_dir/qemu-$image_arch): the build runs the image's Python; run the same make" \
            "command as a job on an $image_arch node: sbatch -N 1 -p <$image_arch partition> --wrap \"$job\"" \
            "(PBS: qsub -l select=1:ncpus=8 -- /usr/bin/$job)"
    fi
fi
# build --fakeroot from a local image keeps the image's file owners, which needs the user's /etc/subuid and
# /etc/subgid ranges (of at least 65536 ids: Apptainer's and SingularityCE's validRangeCount); Apptainer's
# root-mapped fallback without them stops in unsquashfs on a local base (containers/imagetool/buildhost.py).
if ((EUID != 0)); then
    user=$(id -un)
    for file in /etc/subuid /etc/subgid; do
        awk -F: -v user="$user" -v uid="$EUID" '($1 == user || $1 == uid) && $3 >= 65536 { found = 1 }
            END { exit !found }' "$file" 2>/dev/null ||
            extend::die "build --fakeroot from IMAGE needs an entry for $user in $file (none, or under 65536 ids);" \
                "ask your admins to run '$apptainer config fakeroot --add $user', or build where you have one" \
                "(docs/packages.md: as a job on a compute node)"
    done
fi
squashfs=${SQUASHFS_ARGS--comp zstd -Xcompression-level 3}
read -ra extra <<<"${APPTAINER_BUILD_FLAGS:-}"
# --fakeroot: as the project's own image build (containers/imagetool/apptainer.py); --mksquashfs-args only where
# the release has it (Apptainer >= 1.4; elsewhere mksquashfs's default, gzip)
command=("$apptainer" build --force --fakeroot)
# (the whole help text, not `| grep -q`: under pipefail the SIGPIPE grep -q can give apptainer fails the test)
if [[ -n $squashfs && $("$apptainer" build --help 2>/dev/null) == *--mksquashfs-args* ]]; then
    command+=(--mksquashfs-args "$squashfs")
fi
command+=(--build-arg "IMAGE=$image" --build-arg "IMAGE_NAME=${image##*/}" --build-arg "WHEELS=$wheels"
    --build-arg "PACKAGES=${names[*]}" "${extra[@]}" "$out.tmp" "$here/extend.def")
printf 'image-extend: %s\n' "$(printf '%q ' "${command[@]}")"
"${command[@]}"
mv -f -- "$out.tmp" "$out"
printf 'image-extend: wrote %s: %s and its dependencies, on top of %s\n' "$out" "${names[*]}" "${image##*/}"
