#!/usr/bin/env bash
# Copies the CUDA image's fabric stack out of a built image, for a GPU host that has no Apptainer, into
# build/gpu-carry/ of this checkout (build/ is ignored by git; copy it to the GPU host's checkout with the rest):
#   bash bench/gpu_fabric_libs.sh build/app-ngc-twin.sif
# build/gpu-carry/fabric-libs: aws-ofi-nccl's libnccl-net.so, libfabric.so.1 (1.22.0), fi_info, and every
#   library they load from the image but the C and C++ runtimes (hwloc, rdma-core, libnl, udev), as `ldd`
#   lists them inside the image;
# build/gpu-carry/nccl-tests-*.tar.gz: the pinned nccl-tests archive (from SOURCES, default ../shared/sources),
#   which bench/gpu_session.sh builds there against that host's CUDA and NCCL.
set -euo pipefail
image=${1:?usage: bash bench/gpu_fabric_libs.sh IMAGE.sif}
repo=$(cd "$(dirname "$0")/.." && pwd)
dest=$repo/build/gpu-carry
sources=${SOURCES:-$repo/../shared/sources}
rm -rf "$dest" && mkdir -p "$dest/fabric-libs"
# Apptainer refuses root here (capabilities, notes/apptainer-here.md) and users run it unprivileged anyway
as_user=()
if [[ $(id -u) == 0 ]]; then
    as_user=(runuser -u "${APPTAINER_USER:-ddpuser}" --)
    chmod 777 "$dest/fabric-libs"
fi
# shellcheck disable=SC2016  # the script runs inside the image, its variables there
"${as_user[@]}" apptainer exec --bind "$dest/fabric-libs:/mnt/out" "$image" bash -euo pipefail -c '
    files=(/opt/aws-ofi-nccl/lib/libnccl-net.so /opt/libfabric/lib/libfabric.so.1 /opt/libfabric/bin/fi_info)
    cp -L "${files[@]}" /mnt/out/
    ldd "${files[@]}" | awk "/=> \\//{print \$3}" | sort -u |
        grep -Ev "/opt/libfabric/|/(libc|libm|libdl|librt|libpthread|libstdc\\+\\+|libgcc_s)\\.so" |
        xargs -r cp -L -t /mnt/out/'
cp "$sources"/nccl-tests-*.tar.gz "$dest/"
ls -la "$dest" "$dest/fabric-libs"
du -sh "$dest"
