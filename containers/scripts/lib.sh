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

# private_work_dir ROOT: print a new directory under ROOT, mode 0700, owned by the caller. %post sees the build
# host's /tmp, where another user could create a fixed name (/tmp/build) first and swap an archive between
# its sha256 check and its use; ROOT is inside the image being built, and mktemp never reuses a name.
private_work_dir() {
    local root=$1
    mkdir -p "$root"
    mktemp -d "$root/build.XXXXXXXX"
}

# fetch_verified URL SHA256 ARCHIVE DEST: the source archive at DEST, sha256-checked; a mismatch stops the
# build. Taken from the source mirror (/opt/app/sources/ARCHIVE, copied in from `make image SOURCES=DIR`)
# when it has the file, else downloaded from URL.
fetch_verified() {
    local url=$1 sha256=$2 archive=$3 dest=$4 mirror=/opt/app/sources
    [[ $sha256 =~ ^[0-9a-f]{64}$ ]] || die "no valid sha256 for $url (got '$sha256'); pin it in containers/versions.env"
    if [[ -f $mirror/$archive ]]; then
        log "using $archive from the source mirror"
        cp "$mirror/$archive" "$dest"
    else
        log "fetching $url (no $archive in a source mirror)"
        curl --fail --location --silent --show-error --retry 3 --output "$dest" "$url"
    fi
    echo "$sha256  $dest" | sha256sum --check --status ||
        die "sha256 mismatch for $archive ($url): expected $sha256, got $(sha256sum "$dest" | cut -d' ' -f1)"
}

# dev_links DIR NAME...: DIR/libNAME.so -> the loader's libNAME.so.N, so `-LDIR -lNAME` links where a base
# ships the runtime library without its dev link: NGC's CUDA-13 bases keep libibverbs-dev installed in
# dpkg but strip libibverbs.so (ai-dynamo/nixl#889, #1645), and some lack libnccl.so (ai-dynamo/dynamo#5257).
dev_links() {
    local dir=$1 name path
    shift
    mkdir -p "$dir"
    for name in "$@"; do
        path=$(ldconfig -p | awk -v want="lib$name.so." '!found && index($1, want) == 1 { print $NF; found = 1 }')
        [[ -n $path ]] || die "no lib$name.so.* in the loader cache (ldconfig -p); install the package that provides it"
        ln -sf "$path" "$dir/lib$name.so"
    done
}

# add_label KEY VALUE: record a fact found during the build in the image's labels.
add_label() { echo "$1 $2" >>"${APPTAINER_LABELS:?not inside an Apptainer %post}"; }
