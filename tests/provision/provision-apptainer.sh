#!/usr/bin/env bash
# Install Apptainer, squashfuse and debootstrap, and create the non-root user the image tests run as.
# Run as root on Debian 12 (CI runs it through `make test` -> tests/provision/system.sh).
# Idempotent: with everything in place it only checks and returns (well under a second).
#
# Why this is not `apt-get install apptainer`: Apptainer is packaged only in Debian sid, and sid's
# binaries need glibc >= 2.38 (bookworm has 2.36). So we download the sid debs with a private apt
# state, bundle sid's libc/libseccomp/libsqlite3 into /opt/apptainer-glibc inside a repacked
# apptainer deb whose two executables are patchelf'ed onto that private loader, drop those three
# libraries from Depends, and let apt install it. apt stays consistent (no --force-depends), so later
# apt-get installs keep working. The mirror is read from this machine's apt sources at run time.
set -euo pipefail

test_user=${APPTAINER_TEST_USER:-ddpuser}
work=${APPTAINER_INSTALL_WORK:-/tmp/apptainer-install}
glibc_dir=/opt/apptainer-glibc
suite=${APPTAINER_SUITE:-sid}
export DEBIAN_FRONTEND=noninteractive
# shellcheck source=tests/provision/lib.sh
source "$(dirname "$0")/lib.sh"

if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "provision-apptainer: not root on Debian; Apptainer tests will skip (or fail under CI=true)" >&2
    exit 0
fi

debian_mirror() {
    { sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | tr ' ' '\n'
      cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
          awk '$1=="deb"{for(i=2;i<=NF;i++) if($i ~ /^(https?|file):/){print $i; break}}'
    } | grep -v -e security -e '^$' | head -1 || true
}

install_apptainer() {
    local mirror arch=amd64 multiarch=x86_64-linux-gnu loader=ld-linux-x86-64.so.2
    if [[ $(uname -m) == aarch64 ]]; then arch=arm64 multiarch=aarch64-linux-gnu loader=ld-linux-aarch64.so.1; fi
    mirror=$(debian_mirror)
    [[ -n $mirror ]] || { echo "provision-apptainer: no Debian mirror in the apt sources" >&2; exit 1; }
    rm -rf "$work"
    mkdir -p "$work"/{lists/partial,cache/archives/partial,debs,x,pkg}
    echo "deb [arch=$arch] $mirror $suite main" >"$work/sid.list"
    # A private apt state: the host's package lists and cache stay bookworm-only.
    local apt_private=(-o Dir::Etc::SourceList="$work/sid.list" -o Dir::Etc::SourceParts=/dev/null
        -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache"
        -o Acquire::Languages=none -o APT::Architectures::="$arch")
    apt-get "${apt_private[@]}" update -qq
    chmod 755 "$work" "$work/debs"
    chown _apt "$work/debs" 2>/dev/null || true
    (cd "$work/debs" && apt-get "${apt_private[@]}" download -qq apptainer libc6 libseccomp2 libsqlite3-0)

    dpkg-deb -R "$work"/debs/apptainer_*.deb "$work/pkg"
    local deb exe
    for deb in "$work"/debs/lib*.deb; do dpkg-deb -x "$deb" "$work/x"; done
    mkdir -p "$work/pkg$glibc_dir"
    cp -a "$work/x/usr/lib/$multiarch"/*.so* "$work/pkg$glibc_dir/"
    for exe in usr/bin/apptainer "usr/lib/$multiarch/apptainer/bin/starter"; do
        patchelf --set-interpreter "$glibc_dir/$loader" --force-rpath --set-rpath "$glibc_dir" "$work/pkg/$exe"
    done
    sed -i -E \
        -e '/^Depends:/{s/libc6 \([^)]*\)(, )?//; s/libseccomp2 \([^)]*\)(, )?//; s/libsqlite3-0 \([^)]*\)(, )?//; s/, *$//}' \
        -e '/^Version:/s/$/+glibc/' "$work/pkg/DEBIAN/control"
    (cd "$work/pkg" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | xargs -0 md5sum >DEBIAN/md5sums)
    dpkg-deb --root-owner-group -Zgzip -b "$work/pkg" "$work/apptainer-local.deb" >/dev/null
    apt_get install -y -qq "$work/apptainer-local.deb" >/dev/null
    rm -rf "$work"
}

# Build tools (patchelf, squashfs-tools, uidmap for --fakeroot), squashfuse (mount SIFs without
# unpacking: ~3 s per exec instead of ~17 s), debootstrap (the smoke image's base).
want=(patchelf squashfs-tools uidmap containernetworking-plugins ca-certificates e2fsprogs
    squashfuse fuse3 debootstrap)
install_missing provision-apptainer "${want[@]}"

if ! apptainer version >/dev/null 2>&1; then
    echo "provision-apptainer: installing Apptainer from Debian $suite (repacked for bookworm's glibc)" >&2
    install_apptainer
fi

# Unprivileged FUSE mounts of SIFs (squashfuse_ll); without it every exec unpacks the whole image.
[[ -e /dev/fuse ]] && chmod 666 /dev/fuse

# Subordinate ids for `apptainer build --fakeroot` as root; useradd writes them for new users.
grep -q '^root:' /etc/subuid 2>/dev/null || echo 'root:100000:65536' >>/etc/subuid
grep -q '^root:' /etc/subgid 2>/dev/null || echo 'root:100000:65536' >>/etc/subgid

# Cluster users run containers unprivileged; so do the tests (root exec fails on hosts that are themselves containers).
id "$test_user" >/dev/null 2>&1 || useradd -m "$test_user"
grep -q "^$test_user:" /etc/subuid || echo "$test_user:200000:65536" >>/etc/subuid
grep -q "^$test_user:" /etc/subgid || echo "$test_user:200000:65536" >>/etc/subgid
