#!/usr/bin/env bash
# Build the image on a compute node, as a batch job: the node is of the image's architecture, so no QEMU, and
# no build machine of your own. Submit from the project directory (the checkout every node sees):
#
#   sbatch -p PARTITION jobscripts/build-image.sh                           the CUDA image for the node's arch
#   sbatch -p GH200_PARTITION jobscripts/build-image.sh                     aarch64, from an x86_64 login node
#   sbatch --export=ALL,SOURCES=$PWD/build/sources,BASE=$PWD/build/ngc-pytorch-aarch64.sif jobscripts/build-image.sh
#                                                                           offline: a node with no route out
#   qsub -A PROJECT -q QUEUE -l select=1:ncpus=72 jobscripts/build-image.sh  the same under PBS Pro
#
# The image is for the node the job lands on (`uname -m` there): a flavour of another architecture stops in one
# line. Online it fetches what the flavour pins (NGC base, GitHub archives, PyPI wheels); offline (SOURCES=DIR,
# from `make sources` on a machine with a network, and BASE=FILE for a CUDA flavour) it touches no network.
# Apptainer's temporary space and cache go to a private directory on the node's scratch, removed at the end.
# The build tooling runs on the node's own python3 (no torch, no virtual environment).
# Log: build-image-JOBID.out (Slurm) or build-image.oJOBID (PBS) in the submit directory; image: IMAGE_DIR.
#
# Overrides (environment, --export or qsub -v), defaults in brackets:
#   FLAVOUR [ARCH, else the node's `uname -m`]: x86_64 | aarch64 | smoke (CI's CPU flavour)
#   SOURCES [empty: download] a `make sources` mirror     BASE [the registry base] a local base (.sif or dir)
#   IMAGE_DIR [build] where the image and its wheelhouse go   PYTHON [python3]   APPTAINER [apptainer]
#   CHECKOUT [the submit directory] the project directory, when you submit from elsewhere
#   BUILD_SCRATCH [$TMPDIR, else /tmp] where the private build directory is made (room: check-host says how much)
#   APPTAINER_BUILD_FLAGS [] more `apptainer build` flags   SQUASHFS_ARGS [-comp zstd -Xcompression-level 3]
#
#SBATCH --job-name=build-image
#SBATCH --nodes=1
#SBATCH --ntasks=1
# The build compiles libfabric, aws-ofi-nccl and nccl-tests: cores make it faster; ask for more with -c
#SBATCH --cpus-per-task=16
#SBATCH --time=02:00:00
#SBATCH --output=%x-%j.out
#PBS -N build-image
#PBS -l select=1
#PBS -l walltime=02:00:00
#PBS -j oe
# The log written where it ends up as the job runs (tail -f works), as in gh200-pbs.sh
#PBS -k oed
# The submitter's environment (SOURCES, BASE, FLAVOUR) reaches the job, as in gh200-pbs.sh
#PBS -V
set -euo pipefail

say() { echo "build-image.sh: $*"; }
# Exit 2 (app/host/common/exitcodes.py USAGE): the input or the node cannot do this build; do not resubmit as is.
die() { echo "build-image.sh: error: $*" >&2; exit 2; }

# The batch system runs a copy of this file: the checkout is CHECKOUT, else the submit directory (run directly:
# this file's).
repo=${CHECKOUT:-${PBS_O_WORKDIR:-${SLURM_SUBMIT_DIR:-$(cd "$(dirname "$0")/.." && pwd)}}}
[[ -f $repo/containers/app.def ]] ||
    die "$repo holds no containers/app.def; submit from the project directory (cd /path/to/checkout && sbatch jobscripts/build-image.sh)"
cd "$repo"

PYTHON=${PYTHON:-python3}
APPTAINER=${APPTAINER:-apptainer}
IMAGE_DIR=${IMAGE_DIR:-build}
SQUASHFS_ARGS=${SQUASHFS_ARGS:--comp zstd -Xcompression-level 3}
APPTAINER_BUILD_FLAGS=${APPTAINER_BUILD_FLAGS:-}
node_arch=$(uname -m)
FLAVOUR=${FLAVOUR:-${ARCH:-$node_arch}}

command -v "$PYTHON" >/dev/null || die "no $PYTHON on $(hostname); name the node's Python 3: PYTHON=/usr/bin/python3"
command -v "$APPTAINER" >/dev/null ||
    die "no $APPTAINER on $(hostname); load it (module load apptainer) or name it: APPTAINER=singularity"
imagetool() { PYTHONPATH="$repo/containers:$repo" "$PYTHON" -m imagetool "$@"; }

[[ -f containers/arch/$FLAVOUR.env ]] ||
    die "no flavour '$FLAVOUR' (containers/arch/$FLAVOUR.env); FLAVOUR=x86_64, FLAVOUR=aarch64 or FLAVOUR=smoke"
# The image is for the machine it is built on: a flavour of another architecture would need QEMU on the node.
image_arch=$(sed -n 's/^ARCH=//p' "containers/arch/$FLAVOUR.env")
[[ $image_arch == "$node_arch" ]] ||
    die "flavour $FLAVOUR is an $image_arch image and this node ($(hostname)) is $node_arch; submit to $image_arch nodes (sbatch -p <their partition>, qsub -q <their queue>) or pick FLAVOUR=$node_arch"

sets=()
[[ -z ${BASE:-} ]] || sets+=(--set "BASE=$(realpath "$BASE")")
if [[ $FLAVOUR == smoke && -z ${BASE:-} ]]; then sets+=(--set "BASE=$repo/build/smoke-rootfs"); fi

# A private directory (mktemp: mode 0700) on the node's scratch, never the shared /tmp itself: another user
# can neither read the build nor plant files in it. The cache goes there too unless you keep your own.
scratch=${BUILD_SCRATCH:-${TMPDIR:-/tmp}}
work=$(mktemp -d "$scratch/app-build.XXXXXXXX") || die "cannot make a directory in $scratch; BUILD_SCRATCH=/a/dir/of/yours"
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp" "$work/no-sources"
export APPTAINER_TMPDIR=$work/tmp APPTAINER_CACHEDIR=${APPTAINER_CACHEDIR:-$work/cache}
export TMPDIR=$work/tmp
say "building flavour $FLAVOUR on $(hostname) ($node_arch) with $("$APPTAINER" --version) and $("$PYTHON" --version 2>&1)"
say "temporary space and cache in $work (APPTAINER_TMPDIR, APPTAINER_CACHEDIR=$APPTAINER_CACHEDIR)"

mkdir -p "$IMAGE_DIR"
image_dir=$(cd "$IMAGE_DIR" && pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
sif=$image_dir/app-$FLAVOUR-$version.sif
args_file=$image_dir/$FLAVOUR.args
wheelhouse=$image_dir/wheelhouse-$FLAVOUR
mirror_sets=(--set "SOURCES=$work/no-sources")
if [[ -n ${SOURCES:-} ]]; then
    SOURCES=$(realpath "$SOURCES")
    mirror_sets=(--set "SOURCES=$SOURCES")
    say "offline: every archive, wheel and distribution package from the mirror $SOURCES"
fi

# The same steps as `make image` (Makefile build_image), on the node's python3
imagetool lint --arch "$FLAVOUR" "${sets[@]}"
imagetool check-host --arch "$FLAVOUR" --build-arch "$node_arch" --apptainer "$APPTAINER" "${sets[@]}" \
    --extra="$APPTAINER_BUILD_FLAGS"
[[ -z ${SOURCES:-} ]] || imagetool sources --check --arch "$FLAVOUR" --mirror "$SOURCES"
imagetool render --arch "$FLAVOUR" --out "$args_file" --set "WHEELHOUSE=$wheelhouse" "${sets[@]}" "${mirror_sets[@]}"
SOURCES=${SOURCES:-} bash containers/wheelhouse.sh "$FLAVOUR" "$wheelhouse" "$PYTHON"
imagetool build --arch "$FLAVOUR" --build-arch "$node_arch" --apptainer "$APPTAINER" "${sets[@]}" \
    --args-file "$args_file" --squashfs-args "$SQUASHFS_ARGS" --extra="$APPTAINER_BUILD_FLAGS" --out "$sif.tmp"
mv "$sif.tmp" "$sif"
say "built $sif; in a job: IMAGE=$sif (apptainer inspect --labels $sif)"
