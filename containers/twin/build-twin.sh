#!/usr/bin/env bash
# Build the NGC twin base (ngc-pytorch.def) from a debootstrapped Debian and PyPI wheels.
#   containers/twin/build-twin.sh ROOTFS WHEEL_DIR OUT.sif [PYTHON]     (as root; `make twin-base` runs it)
# The wheels come from PyPI through pip's own configuration (here: this machine's local copies first);
# pip inside the build cannot reach PyPI, so they are downloaded on the host and copied in.
set -euo pipefail
usage="usage: build-twin.sh ROOTFS WHEEL_DIR OUT.sif [PYTHON]     (PYTHON: one with the project installed)"
rootfs=${1:?$usage}
wheels=${2:?$usage}
out=${3:?$usage}
python=${4:-python3}
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
    platforms+=(--platform "${tag}_x86_64")
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
