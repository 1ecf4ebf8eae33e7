#!/bin/sh
# CUDA forward compatibility under Apptainer: `sh cuda_compat.sh COMMAND [ARGS...]` decides, then execs COMMAND.
# The image's %runscript (as /opt/app/cuda_compat.sh) and the job's step (its text to `sh -c`,
# app/host/launch/step.py node_command) start every command through it.
#
# Why: the NGC base's CUDA needs the driver its compat libraries come from (CUDA 13.2: the 595 branch). On an
# older driver, NGC's own entrypoint (nvidia_entrypoint.sh, /etc/shinit_v2) puts /usr/local/cuda/compat/lib.real
# first on LD_LIBRARY_PATH; Apptainer never runs it (%runscript replaces the entrypoint, and `sh -c` reads no ENV),
# so CUDA fails to initialise on such nodes. CSCS ships nvidia_entrypoint_fix.sh for the same reason on Alps (it
# compares nvidia-smi's driver with the image's CUDA_DRIVER_VERSION and prepends the compat path).
#
# When: NGC's own logic decides from the driver, not from LD_LIBRARY_PATH. Its /etc/shinit_v2 probes CUDA with
# compat/lib.real first on the path and prepends it where that probe says "CUDA Driver OK"; its entrypoint.d
# driver check compares the driver's branch with the image's CUDA_DRIVER_VERSION. NGC's Docker ENV always has
# /usr/local/cuda/compat/lib on LD_LIBRARY_PATH (containers/twin/ngc-environment.sh): a directory with no
# libcuda in it, so the path's name says nothing. Compat counts as in effect only where a directory on
# LD_LIBRARY_PATH holds a libcuda.so.1 of another driver than the node's (yours, or NGC's entrypoint's).
#
# Forward compatibility works on data-center GPUs only (and select NGC-Ready RTX boards, Jetson), never GeForce:
# NVIDIA CUDA Compatibility guide, "Forward Compatibility"
# (docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html); elsewhere CUDA fails with
# cudaErrorCompatNotSupportedOnDevice (804). The compat libraries must not be used with a driver as new as
# theirs or newer: the native driver is then the right one. A GeForce needs no compat where "minor version
# compatibility" (same guide) runs the image's CUDA natively: CUDA 13.x on any driver >= 580, 12.x >= 525.60.13,
# without PTX JIT of newer PTX; only below that is it refused.
#
# APP_CUDA_COMPAT (yours to set; the default is auto):
#   auto  compat where the driver is older than the image's and compat can help; one line and exit 7 where not
#   on    put the image's compat libraries first whatever the node (a GPU this list does not know, a site's advice)
#   off   leave LD_LIBRARY_PATH alone (your own setup, or to start anyway)
# Exported for app.check (app/check/node/driver.py), so its remedy never sends you back here:
#   APP_CUDA_COMPAT_DONE=on|native|off|kept|none  what this helper did (kept: compat already in effect)
# Exit codes: 7 (app/host/common/exitcodes.py PREFLIGHT) where compat cannot help; 2 for a bad APP_CUDA_COMPAT.
# APP_CUDA_COMPAT_ROOT: a directory standing for / (tests give a fake node and image); empty on real nodes.
root=${APP_CUDA_COMPAT_ROOT:-}
mode=$(printf '%s' "${APP_CUDA_COMPAT:-auto}" | tr '[:upper:]' '[:lower:]')
# The image's CUDA major, from the branch its compat libraries come from (CUDA 13: 580 and later; CUDA 12: 525 to
# 575). Not CUDA_VERSION: NGC's ENV yields to a value from outside (a host's `module load cuda` passes in).
cuda_major() {
    case ${1%%.*} in
        5[8-9][0-9] | [6-9][0-9][0-9]) echo 13 ;;
        5[2-7][0-9]) echo 12 ;;
        *) echo 0 ;;
    esac
}

# The oldest driver branch each CUDA major's forward compatibility supports. CUDA 13's: R535, the oldest branch
# NVIDIA's data-center driver matrix still lists ("Maximum CUDA Major Version Supported Without Forward
# Compatibility Package": R535 CUDA 12, R580 CUDA 13;
# docs.nvidia.com/datacenter/tesla/drivers/615/supported-drivers-and-cuda-toolkit-versions.html). CUDA 12's: R470,
# the CUDA 11 long-term branch. Check the guide's table for a new release; APP_CUDA_COMPAT=on overrides this floor.
compat_floor() {
    case $1 in 13) echo 535 ;; 12) echo 470 ;; *) echo 0 ;; esac
}

# The oldest driver that runs a CUDA major natively (minor version compatibility; CUDA Compatibility guide).
native_minimum() {
    case $1 in 13) echo 580 ;; 12) echo 525.60.13 ;; 11) echo 450.80.02 ;; *) echo 999999 ;; esac
}

say() { echo "cuda-compat: $*" >&2; }

# older A B: true when version A (dotted numbers) is older than B
older() {
    a=$1 b=$2
    while [ -n "$a$b" ]; do
        x=${a%%.*} y=${b%%.*}
        if [ "${x:-0}" -lt "${y:-0}" ]; then return 0; fi
        if [ "${x:-0}" -gt "${y:-0}" ]; then return 1; fi
        case $a in *.*) a=${a#*.} ;; *) a= ;; esac
        case $b in *.*) b=${b#*.} ;; *) b= ;; esac
    done
    return 1
}

is_version() {
    case $1 in '' | *[!0-9.]* | .* | *.) return 1 ;; *) return 0 ;; esac
}

# The host driver: /proc/driver/nvidia/version's first dotted number ("... Kernel Module for x86_64  570.124.06
# Release Build ..."), else nvidia-smi.
host_driver() {
    version=
    if [ -r "$root/proc/driver/nvidia/version" ]; then
        version=$(awk '/^NVRM version:/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+(\.[0-9]+)?$/) {
            print $i; exit } }' "$root/proc/driver/nvidia/version")
    fi
    if [ -z "$version" ] && command -v nvidia-smi >/dev/null 2>&1; then
        version=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | sed -n 1p)
    fi
    is_version "$version" && echo "$version"
}

# The GPUs' names, one a line: /proc/driver/nvidia/gpus/*/information ("Model: NVIDIA H100 ..."), else nvidia-smi.
gpu_names() {
    names=
    for information in "$root"/proc/driver/nvidia/gpus/*/information; do
        [ -r "$information" ] || continue
        names="$names$(sed -n 's/^Model:[[:space:]]*//p' "$information")
"
    done
    if [ -z "$names" ] && command -v nvidia-smi >/dev/null 2>&1; then
        names=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)
    fi
    printf '%s' "$names"
}

# The image's compat libraries: compat/lib.real (NGC), else compat/ (the cuda-compat package's own layout).
compat_dir() {
    for directory in "$root/usr/local/cuda/compat/lib.real" "$root/usr/local/cuda/compat/"; do
        if [ -e "$directory/libcuda.so.1" ]; then echo "$directory"; return; fi
    done
}

# libcuda_version DIR: the driver DIR's libcuda.so.1 comes from, by its link target (libcuda.so.595.45.04);
# fails where it is no such link (Apptainer's --nv binds the host's library as a file of that name).
libcuda_version() {
    target=$(readlink "$1/libcuda.so.1" 2>/dev/null)
    version=${target#libcuda.so.}
    is_version "$version" && echo "$version"
}

# The driver the compat libraries come from: libcuda.so.1's link target, else the image's CUDA_DRIVER_VERSION
# (set by NGC's base).
compat_driver() {
    libcuda_version "$1" && return
    is_version "${CUDA_DRIVER_VERSION:-}" && echo "$CUDA_DRIVER_VERSION"
}

prepend() {
    LD_LIBRARY_PATH="$1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
}

done_as() {
    APP_CUDA_COMPAT_DONE=$1
    export APP_CUDA_COMPAT_DONE
}

# compat_in_effect DRIVER: true where the first directory on LD_LIBRARY_PATH that holds a libcuda.so.1 holds one
# linked to another driver than the node's DRIVER (a compat libcuda someone put first); the node's own (Apptainer's
# --nv libraries: a plain file, or a link to DRIVER's), a directory without libcuda (NGC's compat/lib) or none at
# all: false.
compat_in_effect() {
    rest=${LD_LIBRARY_PATH:-}
    while [ -n "$rest" ]; do
        entry=${rest%%:*}
        case $rest in *:*) rest=${rest#*:} ;; *) rest= ;; esac
        if [ -z "$entry" ] || { [ ! -e "$root$entry/libcuda.so.1" ] && [ ! -L "$root$entry/libcuda.so.1" ]; }; then
            continue
        fi
        found=$(libcuda_version "$root$entry") || return 1
        [ "$found" != "$1" ]
        return
    done
    return 1
}

refuse() {  # DRIVER NEEDED WHY
    say "driver $1 is older than the image's CUDA needs ($2), $3; update the node's driver to $2 or newer, or use an" \
        "image built on an older CUDA (NGC_PYTORCH_TAG in containers/versions.env); APP_CUDA_COMPAT=off starts anyway"
    exit 7
}

decide() {
    case $mode in
        auto | on | off) ;;
        *) say "APP_CUDA_COMPAT='${APP_CUDA_COMPAT}' is not one of auto, on, off (e.g. APP_CUDA_COMPAT=off)"; exit 2 ;;
    esac
    done_as "$mode"
    [ "$mode" = off ] && return
    done_as none
    compat=$(compat_dir)
    [ -n "$compat" ] || return
    if [ "$mode" = on ]; then
        case :${LD_LIBRARY_PATH:-}: in ":$compat:"*) ;; *) prepend "$compat" ;; esac
        done_as on
        say "APP_CUDA_COMPAT=on: LD_LIBRARY_PATH starts with $compat"
        return
    fi
    driver=$(host_driver) || return
    if compat_in_effect "$driver"; then done_as kept; return; fi
    needed=$(compat_driver "$compat") || return
    done_as native
    older "$driver" "$needed" || return
    major=$(cuda_major "$needed")
    consumer=$(gpu_names | grep -i -m 1 -E 'geforce|titan')
    if [ -n "$consumer" ]; then
        minimum=$(native_minimum "$major")
        older "$driver" "$minimum" || {
            say "driver $driver is older than the image's CUDA was built with ($needed) but runs CUDA $major.x natively" \
                "(minor version compatibility, driver $minimum or newer; forward compatibility does not support" \
                "$consumer): compat libraries not used"
            return
        }
        why="below $minimum, the oldest driver that runs CUDA $major.x, and forward compatibility does not support"
        refuse "$driver" "$needed" "$why $consumer (data-center GPUs only)"
    fi
    floor=$(compat_floor "$major")
    ! older "$driver" "$floor" || refuse "$driver" "$needed" \
        "and below $floor, the oldest driver its forward compatibility supports"
    prepend "$compat"
    done_as on
    say "driver $driver is older than the image's CUDA needs ($needed): forward compatibility on for" \
        "$(gpu_names | sed -n 1p) (LD_LIBRARY_PATH starts with $compat)"
}

decide
exec "$@"
