#!/usr/bin/env bash
# Records the Open MPI prefix the base declares, for containers/app.def's %environment, which puts it back when a
# host's `module load openmpi` passed its own OPAL_PREFIX into the container. A Docker base declares it in its ENV,
# which Apptainer wrote to /.singularity.d/env/10-docker2singularity.sh (NGC: OPAL_PREFIX=/opt/hpcx/ompi, HPC-X's
# Open MPI). None declared (the smoke flavour's Debian base): the image's Open MPI runs where it was built and
# OPAL_PREFIX must stay unset.
set -euo pipefail
# shellcheck source=containers/scripts/lib.sh
source "$(dirname "$0")/lib.sh"

docker_env=/.singularity.d/env/10-docker2singularity.sh
prefix=
if [[ -f $docker_env ]]; then
    # In an empty environment: the build's own OPAL_PREFIX, if any, must not answer for the base's.
    # shellcheck disable=SC2016  # expanded by the inner shell, after it sourced the file
    prefix=$(env -i /bin/sh -c '. "$1" >/dev/null 2>&1; printf %s "${OPAL_PREFIX-}"' sh "$docker_env")
fi
[[ $prefix != *[!A-Za-z0-9_./-]* ]] || die "the base's OPAL_PREFIX '$prefix' is not a plain path"
echo "APP_IMAGE_OPAL_PREFIX=$prefix" >/opt/app/opal_prefix.env
log "OPAL_PREFIX of the image: ${prefix:-none (its Open MPI needs none)}"
