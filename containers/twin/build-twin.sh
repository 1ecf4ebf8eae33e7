#!/usr/bin/env bash
# Build the NGC twin base (ngc-pytorch.def) from a debootstrapped Debian and PyPI wheels.
#   containers/twin/build-twin.sh ROOTFS WHEEL_DIR OUT.sif [PYTHON [ARCH]]   (as root; `make twin-base` runs it)
# The wheels come from PyPI through pip's own configuration (here: this machine's local copies first);
# pip inside the build cannot reach PyPI, so they are downloaded on the host and copied in.
# ARCH (x86_64 or aarch64, default: this machine's) is ROOTFS's architecture and the wheels'. Another one than
# the machine's runs %post under QEMU user emulation, which binfmt_misc must have registered with the F flag (so
# it also runs inside the build's container). QEMU 10 it must be: Debian 12's qemu-user-static (QEMU 7.2) stops
# in `import torch` (2.14.1 aarch64: "qemu: uncaught target signal 11" after xbyak_aarch64's "Can't open
# MIDR_EL1 sysfs entry"), where Debian 13's qemu-user (10.0, a static binary) imports it and computes. As root:
#   mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc     (where it is not mounted)
#   apt-get install qemu-user qemu-user-binfmt                     (Debian 13; on Debian 12, unpack 13's qemu-user)
#   grep -v '^#' /usr/lib/binfmt.d/qemu-aarch64.conf >/proc/sys/fs/binfmt_misc/register   (where nothing did)
set -euo pipefail
usage="usage: build-twin.sh ROOTFS WHEEL_DIR OUT.sif [PYTHON [ARCH]]     (PYTHON: one with the project installed)"
rootfs=${1:?$usage}
wheels=${2:?$usage}
out=${3:?$usage}
python=${4:-python3}
arch=${5:-$(uname -m)}
case $arch in
    x86_64 | aarch64) ;;
    *) echo "error: ARCH '$arch' is neither x86_64 nor aarch64 (for GH200: build-twin.sh ... python3 aarch64)" >&2
       exit 2 ;;
esac
binfmt=/proc/sys/fs/binfmt_misc/qemu-$arch
if [[ $arch != "$(uname -m)" ]] && ! grep -qx enabled "$binfmt" 2>/dev/null; then
    echo "error: an $arch twin on this $(uname -m) machine needs QEMU user emulation ($binfmt is not enabled);" \
        "register it as this file's header says" >&2
    exit 2
fi
apptainer=${APPTAINER:-apptainer}
here=$(cd "$(dirname "$0")" && pwd)
# The pins as the image tool reads containers/versions.env (the one reader; it expands ${NAME} too).
args=$(PYTHONPATH="$here/..${PYTHONPATH:+:$PYTHONPATH}" "$python" -m imagetool render --arch ngc-twin --all)
pin() { sed -n "s/^$1=//p" <<<"$args"; }
cuda=$(pin TWIN_CUDA_VERSION) torch=$(pin TWIN_TORCH_VERSION) nccl=$(pin TWIN_NCCL_VERSION)
python_version=$(pin TWIN_PYTHON_VERSION)

# pip matches a wheel's platform tag exactly: name every manylinux tag the NVIDIA wheels use.
platforms=()
for tag in manylinux_2_28 manylinux_2_27 manylinux_2_25 manylinux_2_18 manylinux_2_17 manylinux2014 \
    manylinux_2_12 manylinux2010 manylinux_2_5 manylinux1; do
    platforms+=(--platform "${tag}_$arch")
done
mkdir -p "$wheels"
# torch's CUDA build pulls in its NVIDIA wheels (nvidia-nccl-cu13 among them); the toolkit's own
# wheels are CUDA $cuda's compiler, runtime, headers and NVVM.
python3 -m pip download --quiet --only-binary=:all: --python-version "$python_version" "${platforms[@]}" \
    --dest "$wheels" "torch==$torch" "nvidia-nccl-cu13==$nccl" numpy pyyaml \
    "nvidia-cuda-nvcc==$cuda" "nvidia-cuda-crt==$cuda" "nvidia-nvvm==$cuda" \
    "nvidia-cuda-runtime~=${cuda%.*}.0" "nvidia-cuda-cccl~=${cuda%.*}.0"

"$apptainer" build --force --fakeroot \
    --build-arg ROOTFS="$rootfs" --build-arg WHEELHOUSE="$wheels" --build-arg TWIN_CUDA_VERSION="$cuda" \
    --build-arg TWIN_TORCH_VERSION="$torch" --build-arg TWIN_NCCL_VERSION="$nccl" \
    --mksquashfs-args "-comp zstd -Xcompression-level 3" "$out.tmp" "$here/ngc-pytorch.def"
mv "$out.tmp" "$out"
echo "built $out: the NGC twin (torch $torch, NCCL $nccl, CUDA $cuda)"
