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
#   APPTAINER_CACHEDIR [in the private build directory, removed at the end] keep Apptainer's cache between builds
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

# The batch system runs a copy of this file: the checkout is CHECKOUT, else the submit directory (run directly:
# this file's)
checkout=${CHECKOUT:-${PBS_O_WORKDIR:-${SLURM_SUBMIT_DIR:-$(cd "$(dirname "$0")/.." && pwd)}}}
[[ -f $checkout/containers/app.def ]] || { echo "build-image.sh: error: $checkout holds no containers/app.def; submit from the project directory (cd /path/to/checkout && sbatch jobscripts/build-image.sh)" >&2; exit 2; }
command -v "${PYTHON:=python3}" >/dev/null || { echo "build-image.sh: error: no $PYTHON on $(hostname); name the node's Python 3: PYTHON=/usr/bin/python3" >&2; exit 2; }
# The job itself (containers/imagetool/buildjob.py), on the node's python3 with the checkout's tooling and the
# standard library only (-I: no PYTHONPATH, user site or working directory on its path), once run_checkout.py has
# found that no one else can change the checkout's code (app/host/common/owners.py)
exec "$PYTHON" -I -S -c "$(<"$checkout/app/host/launch/run_checkout.py")" "$checkout" imagetool build-job
