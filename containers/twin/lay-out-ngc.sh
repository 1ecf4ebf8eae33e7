#!/usr/bin/env bash
# Lays a debootstrapped Debian out as the NGC PyTorch base is laid out (run by ngc-pytorch.def's %post).
#   lay-out-ngc.sh WHEEL_DIR        (WHEEL_DIR: containers/twin/build-twin.sh downloads it from PyPI)
#
# Each row: what the real base has | what the twin puts there | the source of the fact. The NGC rows were
# read off releases near the pinned 26.05 (26.03 to 26.07; no file listing of 26.05 itself is public).
# | CUDA toolkit at /usr/local/cuda (nvcc, headers, libcudart.so and its dev link), CUDA_HOME | CUDA's PyPI
#   wheels nvidia-cuda-{nvcc,runtime,crt,cccl} and nvidia-nvvm laid out as the toolkit installer does
#   (nvcc.profile expects targets/<arch>-linux) | NGC 26.07 layer history (`ENV CUDA_HOME=/usr/local/cuda`,
#   `ls /usr/local/cuda/lib64/libcudart.so.*`); the toolkit's own bin/nvcc.profile
# | the CUDA math libraries' headers in the toolkit's include (cublas_v2.h, cusparse.h, cusolverDn.h, curand.h,
#   cufft.h), which torch's ATen/cuda/CUDAContextLight.h includes, so CUDA extensions such as DeepSpeed's FusedAdam
#   compile | the headers of the nvidia-{cublas,cusparse,cusolver,curand,cufft} wheels torch installs (their libraries
#   stay in torch's wheels) | NGC PyTorch release notes (the container is a devel image with the CUDA toolkit and its
#   math libraries); torch's own CUDAContextLight.h
# | NCCL from libnccl2 + libnccl-dev: /usr/lib/<triplet>/libnccl.so.2 and libnccl.so, nccl.h in
#   /usr/include, no libnccl_static.a | nvidia-nccl-cu13's library and headers copied there, torch's copy
#   a link to it | a 26.03 `find /usr -name "libnccl*"` transcript; ai-dynamo/dynamo#5257 (images derived
#   from NGC that lack libnccl.so: the image build links through its own dev links either way)
# | rdma-core from NVIDIA's own debs: libibverbs-dev installed in dpkg, but libibverbs.so and the *.a files
#   stripped, and apt cannot reinstall them | Debian's rdma-core, libibverbs-dev and librdmacm-dev, then
#   the same files removed | ai-dynamo/nixl#889 and #1645 ("ships libibverbs-dev as dpkg-installed but
#   strips the unversioned libibverbs.so"); NGC 26.07 layer history (`rm $(dpkg-query -L libibverbs-dev ...)`)
# | HPC-X: /opt/hpcx/ompi -> /opt/hpcx/ompi5 (or ompi4), /usr/local/mpi -> it, on PATH, and OPAL_PREFIX=
#   /opt/hpcx/ompi in the ENV | Debian's OpenMPI 4.1 linked into /opt/hpcx/ompi4 as a tree it runs from under
#   that OPAL_PREFIX, and the same ENV line | NVIDIA/TensorRT-LLM docker/common/switch_to_ompi4.sh and
#   switch_to_ompi5.sh; NGC 26.07 layer history (`ln -sf /opt/hpcx/ompi${OPENMPI_VERSION_MAJOR} /usr/local/mpi`);
#   images built on NGC's declare the same OPAL_PREFIX (ai-dynamo/dynamo container/Dockerfile)
# | NCCL network plugins the build must remove: HPC-X's (/opt/hpcx/nccl_rdma_sharp_plugin, ...),
#   aws-ofi-nccl at /opt/amazon/ofi-nccl with the EFA libfabric at /opt/amazon/efa; the Docker ENV exports
#   NCCL_NET_PLUGIN=spcx | a real shared object at each path, and the ENV line | eth-cscs/alps-extended-images
#   `Alps-Images/common/alps-runtime.env` ("NGC PyTorch 26.06 sets this to the removed Spectrum-X plugin")
#   and `pytorch-26.06-py3/profile.env` (REMOVE_HPCX_DIRS); NGC 26.07 layer history (`NCCL_NET_PLUGIN=spcx`)
# | Python 3.12 at /usr/bin/python3 with Ubuntu's PEP 668 marker, torch in /usr/local/lib/python3.12/
#   dist-packages, PIP_CONSTRAINT=/etc/pip/constraint.txt (empty in 26.05), PIP_BREAK_SYSTEM_PACKAGES=1 |
#   Debian's Python 3.11 (also marked), torch's CUDA build from PyPI in /usr/local/lib/python3.11/dist-packages,
#   the same two variables and an empty file | NGC 25.12 release notes (torch's path); NGC 26.07 layer history
#   (both ENV lines)
# | The Docker ENV as Apptainer writes it (/.singularity.d/env/10-docker2singularity.sh): PATH unconditionally,
#   CUDA's and HPC-X's bin first; ENV=/etc/shinit_v2 and BASH_ENV=/etc/bash.bashrc | the same lines, written as
#   Apptainer writes them (ngc-environment.sh), and a stand-in /etc/shinit_v2 that runs nvidia-smi as NGC's does |
#   NGC PyTorch 25.10 arm64 layer history (ENV lines); Apptainer's conveyorPacker_oci.go (insertEnv)
# | CUDA's forward compatibility libraries at /usr/local/cuda/compat/lib.real (libcuda.so.1 -> libcuda.so.<the
#   driver CUDA ships with>), CUDA_DRIVER_VERSION in the ENV, /usr/local/cuda/compat/lib on LD_LIBRARY_PATH | stand-in
#   shared objects of the same names for CUDA 13.0 Update 2's driver (580.95.05; TWIN_COMPAT_DRIVER), no real driver
#   code (that is NVIDIA's, not on PyPI): enough for app/common/cuda_compat.sh to decide on them | NGC's
#   nvidia_entrypoint.sh and /etc/shinit_v2 (prepend compat/lib.real where a CUDA probe under it passes); NGC 25.x
#   `env` (`CUDA_DRIVER_VERSION=...`, LD_LIBRARY_PATH with /usr/local/cuda/compat/lib)
# | compilers, git, curl | Debian's build-essential, git, curl | NGC release notes (a devel image)
# Not copied (cannot be, here): Ubuntu 24.04 (the twin is Debian 12: other sonames for some libraries),
# CUDA 13.2 (the wheels are 13.0), NVIDIA's own torch build, DOCA, HPC-X's UCX, SHARP and OpenMPI 5,
# NVIDIA's entrypoint and its own /.singularity.d, the GPU driver (the host's, bound by --nv).
set -euo pipefail
wheels=${1:?usage: lay-out-ngc.sh WHEEL_DIR}
: "${TWIN_CUDA_VERSION:?} ${TWIN_TORCH_VERSION:?} ${TWIN_NCCL_VERSION:?}"
multiarch=$(uname -m)-linux-gnu
log() { echo "[lay-out-ngc] $*" >&2; }

log "system packages"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends python3 python3-pip python3-dev build-essential git curl \
    ca-certificates openmpi-bin libopenmpi-dev rdma-core libibverbs1 ibverbs-providers librdmacm1 \
    libibverbs-dev librdmacm-dev libnuma1 >/dev/null
apt-get clean
rm -rf /var/lib/apt/lists/*

log "Python packages: torch $TWIN_TORCH_VERSION (CUDA build) and its NVIDIA wheels"
python3 -m pip install --quiet --no-cache-dir --no-index --break-system-packages --find-links "$wheels" \
    "torch==$TWIN_TORCH_VERSION" numpy pyyaml
site=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
[[ $site == /usr/local/lib/python3*/dist-packages ]] || { log "torch went to $site, not dist-packages"; exit 1; }

log "CUDA toolkit $TWIN_CUDA_VERSION at /usr/local/cuda"
cuda=/usr/local/cuda-${TWIN_CUDA_VERSION%.*}
target=$cuda/targets/$(uname -m)-linux
unpacked=$(mktemp -d)
for wheel in "$wheels"/nvidia_cuda_nvcc-* "$wheels"/nvidia_cuda_runtime-* "$wheels"/nvidia_cuda_crt-* \
    "$wheels"/nvidia_nvvm-* "$wheels"/nvidia_cuda_cccl-*; do
    python3 -m zipfile -e "$wheel" "$unpacked"
done
mkdir -p "$target"
cp -a "$unpacked"/nvidia/cu13/bin "$unpacked"/nvidia/cu13/nvvm "$cuda"/
cp -a "$unpacked"/nvidia/cu13/include "$unpacked"/nvidia/cu13/lib "$target"/
chmod 755 "$cuda"/bin/* "$cuda"/nvvm/bin/*
ln -s libcudart.so.13 "$target/lib/libcudart.so"
ln -s "targets/$(uname -m)-linux/include" "$cuda/include"
ln -s "targets/$(uname -m)-linux/lib" "$cuda/lib64"
ln -s "$(basename "$cuda")" /usr/local/cuda
echo /usr/local/cuda/lib64 >/etc/ld.so.conf.d/000_cuda.conf
rm -rf "$unpacked"

log "the CUDA math libraries' headers (cuBLAS, cuSPARSE, cuSOLVER, cuRAND, cuFFT) in the toolkit's include"
# From the wheels torch installed: its cuda-toolkit requirement pins their versions. Each carries its headers in
# nvidia/cu13/include; the libraries themselves stay where torch loads them from.
math_libraries=(nvidia-cublas nvidia-cusparse nvidia-cusolver nvidia-curand nvidia-cufft)
python3 - "$target/include" "${math_libraries[@]}" <<'PY'
import importlib.metadata, shutil, sys
include, *distributions = sys.argv[1:]
for name in distributions:
    headers = [f for f in importlib.metadata.files(name) or [] if f.parent.name == "include" and f.suffix == ".h"]
    if not headers:
        sys.exit(f"[lay-out-ngc] {name} installed no headers (nvidia/cu13/include/*.h)")
    for header in headers:
        shutil.copy(header.locate(), include)
PY

log "NCCL $TWIN_NCCL_VERSION in the system directories, as libnccl2 and libnccl-dev install it"
nccl_wheel=$site/nvidia/nccl
install -m 644 "$nccl_wheel/lib/libnccl.so.2" "/usr/lib/$multiarch/libnccl.so.2"
ln -s libnccl.so.2 "/usr/lib/$multiarch/libnccl.so"
cp -a "$nccl_wheel"/include/* /usr/include/
# One NCCL, as in NGC, where torch is built against the system library.
ln -sf "/usr/lib/$multiarch/libnccl.so.2" "$nccl_wheel/lib/libnccl.so.2"

log "rdma-core as NVIDIA's debs leave it: libibverbs-dev installed, its dev link and archives gone"
rm -f "/usr/lib/$multiarch/libibverbs.so"
dpkg-query -L libibverbs-dev librdmacm-dev | grep '\.a$' | xargs -r rm -f

log "HPC-X layout: OpenMPI 4 at /opt/hpcx/ompi4, /opt/hpcx/ompi and /usr/local/mpi pointing at it"
ompi=/opt/hpcx/ompi4
mkdir -p "$ompi/bin"
ln -s "/usr/lib/$multiarch/openmpi/include" "$ompi/include"
mkdir -p "$ompi/lib/$multiarch" "$ompi/share"
ln -s "/usr/lib/$multiarch/openmpi/lib/"* "$ompi/lib/"
# NGC's ENV sets OPAL_PREFIX=/opt/hpcx/ompi (ngc-environment.sh), and Open MPI then looks for its components,
# help and wrapper files under that prefix, at the paths it was configured with relative to its own prefix
# (docs.open-mpi.org, "Installation location": OPAL_PREFIX). Debian's (`ompi_info --path all`, prefix /usr):
# lib/<triplet>/openmpi and share/openmpi; /etc/openmpi is absolute. orted: what mpirun starts on other nodes.
ln -s "/usr/lib/$multiarch/openmpi" "$ompi/lib/$multiarch/openmpi"
ln -s /usr/share/openmpi "$ompi/share/openmpi"
for tool in mpirun mpiexec mpicc mpicxx orterun orted ompi_info; do
    if [[ -e /usr/bin/$tool ]]; then ln -s "/usr/bin/$tool" "$ompi/bin/$tool"; fi
done
ln -s ompi4 /opt/hpcx/ompi
ln -s "$ompi" /usr/local/mpi
[[ -e $ompi/lib/libmpi.so ]] || { log "no libmpi.so under $ompi/lib"; exit 1; }
OPAL_PREFIX=/opt/hpcx/ompi /opt/hpcx/ompi/bin/mpirun --version >/dev/null ||
    { log "Open MPI does not run with OPAL_PREFIX=/opt/hpcx/ompi"; exit 1; }

log "NCCL network plugins and the EFA libfabric NGC ships (stale here: remove-stale-plugins.sh deletes them)"
# In a directory of its own: %post sees the build host's shared /tmp.
work=$(mktemp -d /opt/twin-build.XXXXXXXX)
echo 'int ncclNetPlugin_v8 = 0;' >"$work/stale.c"
for library in /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so \
    /opt/hpcx/nccl_spectrum-x_plugin/lib/libnccl-net-spcx.so /opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so \
    /opt/amazon/efa/lib/libfabric.so.1; do
    mkdir -p "$(dirname "$library")"
    gcc -shared -fPIC -o "$library" "$work/stale.c"
done
rm -r "$work"
printf '%s\n' /opt/hpcx/nccl_rdma_sharp_plugin/lib /opt/amazon/ofi-nccl/lib >/etc/ld.so.conf.d/hpcx-nccl-plugins.conf
# The name the EFA installer gives its loader entry (remove-stale-plugins.sh deletes *efa*).
echo /opt/amazon/efa/lib >/etc/ld.so.conf.d/efa.conf
ldconfig

log "CUDA compat libraries (stand-ins) at /usr/local/cuda/compat/lib.real"
compat_driver=${TWIN_COMPAT_DRIVER:-580.95.05}
compat=$cuda/compat/lib.real
mkdir -p "$compat"
work=$(mktemp -d /opt/twin-build.XXXXXXXX)
echo 'int twin_compat_stand_in = 0;' >"$work/compat.c"
gcc -shared -fPIC -o "$compat/libcuda.so.$compat_driver" "$work/compat.c"
rm -r "$work"
ln -s "libcuda.so.$compat_driver" "$compat/libcuda.so.1"

log "the Docker environment (PATH, ENV/BASH_ENV and /etc/shinit_v2, an empty /etc/pip/constraint.txt)"
bash "$(dirname "$0")/ngc-environment.sh" / "$site"

found=$(python3 -c 'import torch; print(".".join(map(str, torch.cuda.nccl.version())))')
[[ $found == "$TWIN_NCCL_VERSION" ]] || { log "torch reports NCCL $found, not $TWIN_NCCL_VERSION"; exit 1; }
log "done: torch $(python3 -c 'import torch; print(torch.__version__)'), NCCL $found, $("$cuda/bin/nvcc" --version | tail -1)"
