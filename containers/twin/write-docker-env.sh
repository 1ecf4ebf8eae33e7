#!/usr/bin/env bash
# Writes the environment file Apptainer writes for a Docker base, from its ENV lines (NAME=value, one a line, on
# stdin), so that the twin's environment behaves as NGC's does under Apptainer:
#   write-docker-env.sh OUT <<<"PATH=/usr/local/cuda/bin:/usr/bin"      (OUT: /.singularity.d/env/10-docker2singularity.sh)
# Apptainer (internal/pkg/build/sources/conveyorPacker_oci.go, insertEnv) writes PATH unconditionally,
# `export PATH="value"`, and every other variable only if unset, `export NAME="${NAME:-"value"}"`: the image's
# PATH replaces the one the container starts with, so NGC's /usr/local/mpi/bin (HPC-X mpirun, mpicc) and
# /usr/local/cuda/bin (nvcc) are found, while a user's own CUDA_HOME or LD_LIBRARY_PATH wins over the image's.
set -euo pipefail
out=${1:?usage: write-docker-env.sh OUT < NAME=value lines}
{
    echo '#!/bin/sh'
    while IFS='=' read -r name value; do
        [[ -n $name ]] || continue
        if [[ $name == PATH ]]; then
            echo "export PATH=\"$value\""
        else
            echo "export $name=\"\${$name:-\"$value\"}\""
        fi
    done
} >"$out"
chmod 755 "$out"
