#!/usr/bin/env bash
# Entry point of the image build, called by %post with the build arguments in the environment.
# Runs every step in order; the steps skip only what needs CUDA when WITH_CUDA=0 (smoke flavour).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=containers/scripts/lib.sh
source "$here/lib.sh"
need ARCH FLAVOUR WITH_CUDA TORCH_VERSION PYTHON

[[ $(uname -m) == "$ARCH" ]] ||
    die "building the $ARCH image on a $(uname -m) machine: the base's platform is wrong (register qemu binfmt and pass --arch, or build on a $ARCH node)"

# An offline build: `make image SOURCES=DIR` copied a source mirror in (empty otherwise). Then the distribution
# packages come from the ones `make sources` gathered from this base (its debs-FLAVOUR), never from the archive.
if [[ -n $(ls -A /opt/app/sources) ]]; then
    need DEBS
    export DEB_MIRROR=/opt/app/sources/$DEBS
fi

# Every step compiles under BUILD_DIR, a private directory inside the image (never the host's shared /tmp).
BUILD_DIR=$(private_work_dir /opt/app)
export BUILD_DIR
trap 'rm -rf "$BUILD_DIR"' EXIT

# The base's own network plugins and EFA libfabric go first: left in place, the loader could resolve our
# plugin's libfabric.so.1 to AWS's while we build and check it (the NGC twin showed it).
for step in install-system-packages remove-stale-plugins build-libfabric build-aws-ofi-nccl build-nccl-tests \
    install-python record-opal-prefix record-versions; do
    log "step $step"
    started=$SECONDS
    bash "$here/$step.sh"
    # each step's time, so that a slow one (nvcc on a login node, anything under QEMU) shows where it goes
    log "step $step: done in $((SECONDS - started)) s"
done
# The source mirror (make image SOURCES=DIR) was only needed to build.
rm -rf /opt/app/sources
