#!/usr/bin/env bash
# The smoke flavour's base: a minimal Debian rootfs from the machine's own Debian mirror (no registry).
#   containers/debootstrap-rootfs.sh DIR SUITE [DEBIAN_ARCH]     (as root; about 25 s, arm64 ~1 min)
# DEBIAN_ARCH (default: this machine's): arm64 on an x86_64 machine runs debootstrap's second stage under
# QEMU user emulation, registered with binfmt_misc (containers/twin/build-twin.sh says how).
set -euo pipefail
usage="usage: debootstrap-rootfs.sh DIR SUITE [DEBIAN_ARCH]"
dir=${1:?$usage}
suite=${2:?$usage}
debian_arch=${3:-}

[[ $(id -u) -eq 0 ]] || { echo "error: debootstrap needs root; run 'make smoke-image' as root (CI does)" >&2; exit 1; }
command -v debootstrap >/dev/null ||
    { echo "error: debootstrap not found; as root: bash tests/provision/provision-apptainer.sh" >&2; exit 1; }
# The mirror this machine already uses (deb822 .sources or one-line .list), so no host is written here.
mirror=$( { sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | tr ' ' '\n'
            cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
                awk '$1=="deb"{for(i=2;i<=NF;i++) if($i ~ /^(https?|file):/){print $i; break}}'; } |
          grep -v -e security -e '^$' | head -1 || true)
[[ -n $mirror ]] || { echo "error: no Debian mirror in the apt sources" >&2; exit 1; }

# The Release files' signatures are checked against Debian's own keys (package debian-archive-keyring), and a
# mirror that serves them unsigned is refused (--force-check-gpg; debootstrap otherwise goes on without a check
# when it finds no keyring).
keyring=${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
[[ -f $keyring ]] ||
    { echo "error: no Debian keyring at $keyring; install it (apt-get install debian-archive-keyring) or set DEBIAN_KEYRING" >&2; exit 1; }

rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
debootstrap ${debian_arch:+--arch="$debian_arch"} --variant=minbase --force-check-gpg --keyring="$keyring" "$suite" "$dir" "$mirror" >"$dir.log" 2>&1 ||
    { tail -20 "$dir.log" >&2; echo "error: debootstrap failed (log: $dir.log)" >&2; exit 1; }
# Device nodes cannot be copied under --fakeroot (Lchown /dev/console fails); Apptainer provides /dev.
rm -rf "${dir:?}"/dev/*
