#!/usr/bin/env bash
# Helpers shared by the image build steps (sourced, not run).

# log MESSAGE: one line on stderr, prefixed with the step's name.
log() { echo "[${0##*/}] $*" >&2; }

# die MESSAGE: stop the build with the cause and the fix.
die() { echo "[${0##*/}] error: $*" >&2; exit 1; }

# need VAR...: every named build argument must be set (Apptainer renders them into %post).
need() {
    local var
    for var in "$@"; do
        [[ -n ${!var:-} ]] || die "build argument $var is empty; render the args with 'python -m imagetool render'"
    done
}

# fetch_verified URL SHA256 DEST: download URL to DEST and check its sha256; a mismatch stops the build.
fetch_verified() {
    local url=$1 sha256=$2 dest=$3
    [[ $sha256 =~ ^[0-9a-f]{64}$ ]] || die "no valid sha256 for $url (got '$sha256'); pin it in containers/versions.env"
    log "fetching $url"
    curl --fail --location --silent --show-error --retry 3 --output "$dest" "$url"
    echo "$sha256  $dest" | sha256sum --check --status ||
        die "sha256 mismatch for $url: expected $sha256, got $(sha256sum "$dest" | cut -d' ' -f1)"
}

# add_label KEY VALUE: record a fact found during the build in the image's labels.
add_label() { echo "$1 $2" >>"${APPTAINER_LABELS:?not inside an Apptainer %post}"; }
