#!/usr/bin/env bash
# Sourced by the provisioning scripts beside it: apt with retries, and "install what is missing".

# Retry apt while another process holds the dpkg lock (several jobs share these machines).
apt_get() {
    local try
    for try in 1 2 3 4 5 6; do
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=60 "$@" && return 0
        echo "provision: apt-get $1 failed (try $try), retrying" >&2
        sleep 5
    done
    return 1
}

# install_missing TAG DEB...: apt-get install the named Debian packages that are not installed yet.
install_missing() {
    local tag=$1 deb
    shift
    local missing=()
    for deb in "$@"; do
        [[ $(dpkg-query -W -f='${Status}' "$deb" 2>/dev/null) == "install ok installed" ]] || missing+=("$deb")
    done
    ((${#missing[@]})) || return 0
    echo "$tag: apt-get install ${missing[*]}" >&2
    apt_get update -qq
    apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
