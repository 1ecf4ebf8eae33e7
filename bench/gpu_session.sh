#!/usr/bin/env bash
# What the GPU figures of BENCHMARKS.md measure, in parts; one command on a GPU host runs one or more:
#   bash bench/gpu_session.sh PART...
# fabric: the CUDA image's aws-ofi-nccl plugin and libfabric on this GPU;
# nccl-tests: all_reduce_perf built here against this host's CUDA and NCCL, run by itself and
#         by the check. Both need .gpu-carry/, which `bash bench/gpu_fabric_libs.sh IMAGE.sif` fills on the
#         CPU machine and copied to the GPU host;
# ranks:  several NCCL ranks on the one GPU, each its own NCCL_HOSTID (tests/gpu/test_gpu_ranks.py);
# paths:  the other GPU-marked tests (tests/gpu/test_gpu_paths.py); `tests` is ranks then paths;
# pairs:  app.train against the hand loop (bench.gpu_train --parts pairs);
# scale:  larger presets for MFU, then fsdp against ddp at world size 1 and 2 (--parts sizes sharded).
# The parts share one deadline, GPU_SESSION_S seconds from the start (default 560), so the command ends,
# with what ran, inside a time-limited allocation; PART:SECONDS also caps one part (ranks:300). Output goes to
# $OUT (kept small: eight files), else ./gpu-session: one log per part, the
# machine's versions, and the test runs' logs (NCCL's included, snapshots left out) in one archive.
set -uo pipefail
parts="fabric, nccl-tests, ranks, paths, tests, pairs, scale"
(($#)) || { echo "usage: bash bench/gpu_session.sh PART[:SECONDS]... ($parts)" >&2; exit 2; }
out=${OUT:-gpu-session}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.." || exit
export PYTHONUNBUFFERED=1
deadline=$((SECONDS + ${GPU_SESSION_S:-560}))
part_deadline=$deadline
left() { echo $((part_deadline - SECONDS > 5 ? part_deadline - SECONDS : 5)); }
basetemp=/tmp/gpu-session-tests
rm -rf "$basetemp" && mkdir -p "$basetemp"
pytest_gpu() {  # pytest_gpu LOG ARGS...: the GPU-marked tests, each test's time listed, until the deadline
    local log=$1; shift
    timeout "$(left)" python3 -m pytest -p no:cacheprovider -m gpu -q -rA --durations=0 \
        --basetemp="$basetemp/$(basename "$log" .log)" "$@" 2>&1 | tee -a "$log"
}

# Versions first: the figures mean nothing without them
{ nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  nproc; } 2>&1 | tee "$out/session-machine.txt"

# nccl-tests, built while the parts before it run: only all_reduce_perf, only this GPU's
# architecture, without MPI (one process drives the GPU; no launcher exists here), against the NCCL that
# torch loads here (the nvidia-nccl wheel) and this host's CUDA.
nccl_tests=/tmp/nccl-tests/build
build_nccl_tests() {
    local nccl cuda cudart arch
    nccl=$(python3 -c 'import nvidia.nccl as n; print(list(n.__path__)[0])') || return
    cuda=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
    cudart=$(find -L "$cuda" -name 'libcudart.so*' -print -quit 2>/dev/null)
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d .)
    echo "nccl $nccl; cuda $cuda (cudart $cudart); sm_$arch"
    mkdir -p /tmp/nccl-tests/home/lib && tar -xzf .gpu-carry/nccl-tests-*.tar.gz -C /tmp/nccl-tests --strip-components=1
    ln -sf "$nccl/include" /tmp/nccl-tests/home/include
    ln -sf "$nccl"/lib/libnccl.so.2 /tmp/nccl-tests/home/lib/libnccl.so  # the wheel has no dev link
    make -C /tmp/nccl-tests/src -j"$(nproc)" MPI=0 CUDA_HOME="$cuda" CUDA_LIB="$(dirname "$cudart")" \
        NCCL_HOME=/tmp/nccl-tests/home BUILDDIR="$nccl_tests" \
        NVCC_GENCODE="-gencode=arch=compute_$arch,code=sm_$arch" "$nccl_tests/all_reduce_perf" >/dev/null &&
        echo "$nccl/lib:$(dirname "$cudart")" >"$nccl_tests/library-path"
}
if [[ " $* " == *" nccl-tests"[:\ ]* ]]; then
    (time build_nccl_tests) >"$out/nccl-tests-build.log" 2>&1 &
    build_pid=$!
fi

fabric() {
    local libs=$PWD/.gpu-carry/fabric-libs log=$out/fabric.log
    if [[ ! -e $libs/libnccl-net.so ]]; then
        echo "fabric: no $libs (bash bench/gpu_fabric_libs.sh)" | tee "$log"; return 1
    fi
    { echo "== ldd -r libnccl-net.so"; LD_LIBRARY_PATH=$libs ldd -r "$libs/libnccl-net.so"
      echo "== fi_info -p tcp (FI_TCP_IFACE=lo)"; FI_TCP_IFACE=lo LD_LIBRARY_PATH=$libs "$libs/fi_info" -p tcp | head -20
    } >"$log" 2>&1
    APP_TEST_FABRIC_LIBS=$libs pytest_gpu "$log" tests/gpu/test_gpu_fabric.py -k "not all_reduce_perf"
}

nccl_tests_part() {
    local log=$out/nccl-tests.log
    wait "$build_pid"
    if [[ ! -x $nccl_tests/all_reduce_perf ]]; then
        echo "nccl-tests: not built (nccl-tests-build.log)" | tee "$log"; return 1
    fi
    # all_reduce_perf, by itself and as the check starts it (found on PATH), with the libraries it was built against
    local built_against
    built_against=$(cat "$nccl_tests/library-path")
    local -x LD_LIBRARY_PATH=$built_against${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    echo "== all_reduce_perf -b 8 -e 1G -f 4 -g 1" >"$log"
    timeout 120 "$nccl_tests/all_reduce_perf" -b 8 -e 1G -f 4 -g 1 >>"$log" 2>&1
    APP_TEST_NCCL_TESTS=$nccl_tests pytest_gpu "$log" tests/gpu/test_gpu_fabric.py -k all_reduce_perf
}

for spec in "$@"; do
    part=${spec%%:*}
    part_deadline=$deadline
    [[ $spec == *:* ]] && part_deadline=$((SECONDS + ${spec#*:} < deadline ? SECONDS + ${spec#*:} : deadline))
    echo "== $part ($((part_deadline - SECONDS)) s for it, $((deadline - SECONDS)) s left)"
    case $part in
        fabric) fabric ;;
        nccl-tests) nccl_tests_part ;;
        ranks) pytest_gpu "$out/ranks.log" tests/gpu/test_gpu_ranks.py ;;
        paths) pytest_gpu "$out/paths.log" tests/gpu/test_gpu_paths.py ;;
        tests) pytest_gpu "$out/ranks.log" tests/gpu/test_gpu_ranks.py
               pytest_gpu "$out/paths.log" tests/gpu/test_gpu_paths.py ;;
        pairs)
            timeout "$(left)" python3 -m bench.gpu_train --parts pairs --runs gpt2:16 gpt2-medium:16 \
                --variants model blocks --pairs 2 --results "$out/pairs.jsonl" 2>&1 | tee "$out/pairs.log" ;;
        scale)
            timeout "$(left)" python3 -m bench.gpu_train --parts sizes sharded --sizes gpt2-large:8 gpt2-xl:8 \
                --sharded gpt2:8 gpt2-medium:8 --results "$out/scale.jsonl" 2>&1 | tee "$out/scale.log" ;;
        *) echo "bash bench/gpu_session.sh: unknown part '$part' ($parts)" >&2
           exit 2 ;;
    esac
done
# The tests' run folders without snapshots: NCCL's logs, metrics, summaries
[[ -d $basetemp ]] && tar -czf "$out/session-runs.tgz" -C "$basetemp" --exclude='*.pt' --exclude='*.distcp' \
    --exclude='snapshots' . 2>/dev/null
exit 0
