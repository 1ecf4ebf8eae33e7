#!/usr/bin/env bash
# Record what was actually installed (not just what was pinned) in the image's labels, and fail when
# the base disagrees with a pin: `apptainer inspect --labels` then tells the truth about the image.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"
need PYTHON WITH_CUDA

add_label app.installed.torch "$("$PYTHON" -c 'import torch; print(torch.__version__)')"
add_label app.installed.python "$("$PYTHON" -c 'import platform; print(platform.python_version())')"
add_label app.installed.app "$("$PYTHON" -c 'from importlib.metadata import version; print(version("app"))')"
add_label app.installed.rdma-core "$(dpkg-query -W -f='${Version}' rdma-core)"
if [[ $WITH_CUDA == 1 ]]; then
    need NCCL_VERSION
    nccl=$("$PYTHON" -c 'import torch; print(".".join(map(str, torch.cuda.nccl.version())))')
    [[ $nccl == "$NCCL_VERSION" ]] ||
        die "the base's NCCL is $nccl but containers/versions.env pins NCCL_VERSION=$NCCL_VERSION; set it to $nccl (or change the base)"
    add_label app.installed.nccl "$nccl"
    add_label app.installed.libfabric "$(/opt/libfabric/bin/fi_info --version | sed -n 's/^libfabric: *//p')"
    add_label app.installed.cuda "$(/usr/local/cuda/bin/nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
else
    add_label app.installed.cuda-components "skipped (WITH_CUDA=0): no NCCL plugin, libfabric or nccl-tests"
fi
