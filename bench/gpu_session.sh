#!/usr/bin/env bash
# Everything the GPU figures need, in parts, as one command on a GPU node of one GPU (or more: it uses GPU 0):
#   bash bench/gpu_session.sh [--budget SECONDS] [--out DIR] [--pairs "SIZE:MB..."] [--mfu "SIZE:MB:SEQ..."]
#                             [--dry-run] [PART[:SECONDS]...]                       (no part: the plan below)
# --budget: the whole session's time, SECONDS from the start (default 560): the parts share it, PART:SECONDS
#   also caps one part, and what a part measured is kept when its time runs out; give your allocation's
#   time less a margin for the last part's teardown (up to 20 s).
# --out: where the figures go (default gpu-session/ in the checkout); the work in between (run folders, the
#   tests' temporary folders, the nccl-tests build) goes to build/gpu-session-work.*/ and is removed at the end.
# --dry-run: the same plumbing on a CPU, tiny sizes, no compilation (tests/bench); its figures mean nothing.
#   Before a GPU session, run `.venv/bin/nox -s gpu_session_dry` here: the whole plan dry, minutes on 2 cores
#   (too slow for `make test`, which runs only the cap and refusal tests of tests/bench/test_gpu_session.py).
# The plan, the issue's targets first (the figures each is set against in brackets):
# pairs:     app.train against the hand loop without DDP at world size 1, gpt2 then gpt2-medium, micro-batch 16
#            (app.train / hand loop >= 1.0; bench.gpu_train --parts pairs);
# mfu:       gpt2-xl at sequence 2048, micro-batch 8 then 12, activation checkpointing only where the step does
#            not fit without it (MFU >= 50%; bench.gpu_train --parts mfu);
# sharded:   fsdp against ddp at world size 1, then 2 (two NCCL ranks on the one GPU, each its own
#            NCCL_HOSTID), gpt2 at micro-batch 8, 4 micro-batches a step, compile_scope blocks: fsdp with each
#            block gathered once a step (the default) at both, then gathered in every micro-batch (the code
#            before; each figure names its `gathering`) (fsdp / ddp >= 0.9, the default);
# multirank: compiled fsdp on two ranks: killed with SIGKILL, restarted, bit-identical to the uninterrupted run
#            (the demo model), then gpt2 trained compiled under fsdp (tests/gpu/test_gpu_ranks.py);
# profile:   torch.profiler on one steady step of each case above that missed its target: app.train and the
#            hand loop for a pairs miss, app.train under fsdp for a sharded miss (bench.gpu_profile); nothing
#            when every target was met.
# Other parts: fabric (the CUDA image's aws-ofi-nccl plugin and libfabric), nccl-tests (all_reduce_perf built
# here against this host's CUDA and NCCL; both need build/gpu-carry/ from `bash bench/gpu_fabric_libs.sh
# IMAGE.sif`), ranks (all of tests/gpu/test_gpu_ranks.py), paths (tests/gpu/test_gpu_paths.py), tests (both).
# The figures are at most 8 files of at most 16 MiB (easy to copy off a GPU node): session-machine.txt
# (versions), session.log (every part's output), results.jsonl (every figure as it came, and each part's exit
# status and seconds), profile.txt and the chrome traces profile-app.trace.json.gz,
# profile-hand.trace.json.gz and profile-fsdp.trace.json.gz, session-runs.tgz (the run folders without
# snapshots, the profiler's operator tables as JSON).
set -uo pipefail
parts="pairs, mfu, sharded, multirank, profile, fabric, nccl-tests, ranks, paths, tests"
plan=(pairs:150 mfu:120 sharded:240 multirank:150 profile)
pairs_cases="gpt2:16 gpt2-medium:16"  # SIZE:MICRO_BATCH..., in this order
mfu_cases="gpt2-xl:8:2048 gpt2-xl:12:2048"  # SIZE:MICRO_BATCH:SEQUENCE..., in this order
budget=560
dry=0
py=${PYTHON:-python3}
repo=$(cd "$(dirname "$0")/.." && pwd)
figures=$repo/gpu-session
usage="usage: bash bench/gpu_session.sh [--budget SECONDS] [--out DIR] [--pairs CASES] [--mfu CASES] [--dry-run] [PART[:SECONDS]...]"
while (($#)); do
    case $1 in
        --budget) [[ ${2:-} =~ ^[0-9]+$ ]] || { echo "$usage (--budget takes whole seconds, e.g. --budget 560)" >&2; exit 2; }
                  budget=$2; shift 2 ;;
        --out) [[ -n ${2:-} ]] || { echo "$usage (--out takes a folder, e.g. --out gpu-session)" >&2; exit 2; }
               figures=$2; shift 2 ;;
        --pairs) pairs_cases=${2:?$usage}; shift 2 ;;
        --mfu) mfu_cases=${2:?$usage}; shift 2 ;;
        --dry-run) dry=1; shift ;;
        -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d;s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "bash bench/gpu_session.sh: unknown option '$1' ($usage)" >&2; exit 2 ;;
        *) break ;;
    esac
done
read -ra pairs_runs <<<"$pairs_cases"
read -ra mfu_runs <<<"$mfu_cases"
(($#)) || set -- "${plan[@]}"
for spec in "$@"; do
    [[ ", $parts, " == *", ${spec%%:*}, "* ]] ||
        { echo "bash bench/gpu_session.sh: unknown part '${spec%%:*}' (parts: $parts)" >&2; exit 2; }
done
mkdir -p "$figures" && figures=$(cd "$figures" && pwd)
cd "$repo" || exit
export PYTHONUNBUFFERED=1
deadline=$((SECONDS + budget))
part_deadline=$deadline
left() { echo $((part_deadline - SECONDS > 5 ? part_deadline - SECONDS : 5)); }
# A part stopped at its deadline ends with everything it started: timeout puts itself in a process group
# of its own and signals the whole group (coreutils src/timeout.c: setpgid(0, 0), then send_sig(0, sig)),
# torchrun's workers and the tests' agents included; -k: SIGKILL to what is left 15 s later.
capped() { timeout -k 15 "$(left)" "$@"; }
mkdir -p "$repo/build"
work=$(mktemp -d "$repo/build/gpu-session-work.XXXXXX")  # one per session: two may run side by side
basetemp=$work/tests
# The compile caches and temporary files are the session's work too: kept in it and removed with it, whatever
# the calling shell had (an inherited TORCHINDUCTOR_CACHE_DIR would put compiled code in a shared /tmp).
export TMPDIR=$work/tmp TORCHINDUCTOR_CACHE_DIR=$work/compile-cache TRITON_CACHE_DIR=$work/compile-cache/triton
mkdir -p "$TMPDIR"
mkdir -p "$basetemp"  # pytest makes only the last folder of --basetemp
carry=$repo/build/gpu-carry
log=$figures/session.log
results=$figures/results.jsonl
: >"$log"
: >"$results"
runs=0
pytest_gpu() {  # pytest_gpu ARGS...: the GPU-marked tests, each test's time listed, until the deadline
    runs=$((runs + 1))  # a folder of its own (the part's name: each part runs in a subshell): pytest empties it
    capped "$py" -m pytest -p no:cacheprovider -m gpu -q -rA --durations=0 --basetemp="$basetemp/$part-$runs" "$@"
}
# Versions first: the figures mean nothing without them
{ if ((dry)); then echo "dry run on $(uname -m), no GPU: the figures mean nothing"
  else nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader; fi
  "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda,
"nccl", torch.cuda.nccl.version() if torch.cuda.is_available() else None)'
  nproc; } 2>&1 | tee "$figures/session-machine.txt"
echo "work: $work" >>"$log"

# nccl-tests, built while the parts before it run: only all_reduce_perf, only this GPU's architecture,
# without MPI (one process drives the GPU), against the NCCL that torch loads here (the nvidia-nccl wheel)
# and this host's CUDA.
nccl_tests=$work/nccl-tests/build
build_nccl_tests() {
    local nccl cuda cudart arch
    nccl=$("$py" -c 'import nvidia.nccl as n; print(list(n.__path__)[0])') || return
    cuda=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
    cudart=$(find -L "$cuda" -name 'libcudart.so*' -print -quit 2>/dev/null)
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | sed -n 1p | tr -d .)
    echo "nccl $nccl; cuda $cuda (cudart $cudart); sm_$arch"
    mkdir -p "$work/nccl-tests/home/lib" &&
        tar -xzf "$carry"/nccl-tests-*.tar.gz -C "$work/nccl-tests" --strip-components=1
    ln -sf "$nccl/include" "$work/nccl-tests/home/include"
    ln -sf "$nccl"/lib/libnccl.so.2 "$work/nccl-tests/home/lib/libnccl.so"  # the wheel has no dev link
    make -C "$work/nccl-tests/src" -j"$(nproc)" MPI=0 CUDA_HOME="$cuda" CUDA_LIB="$(dirname "$cudart")" \
        NCCL_HOME="$work/nccl-tests/home" BUILDDIR="$nccl_tests" \
        NVCC_GENCODE="-gencode=arch=compute_$arch,code=sm_$arch" "$nccl_tests/all_reduce_perf" >/dev/null &&
        echo "$nccl/lib:$(dirname "$cudart")" >"$nccl_tests/library-path"
}
if [[ " $* " == *" nccl-tests"[:\ ]* ]]; then
    (time build_nccl_tests) >"$work/nccl-tests-build.log" 2>&1 &
    build_pid=$!
fi

fabric() {
    local libs=$carry/fabric-libs
    if [[ ! -e $libs/libnccl-net.so ]]; then
        echo "fabric: no $libs (bash bench/gpu_fabric_libs.sh IMAGE.sif)"; return 1
    fi
    echo "== ldd -r libnccl-net.so"; LD_LIBRARY_PATH=$libs ldd -r "$libs/libnccl-net.so"
    echo "== fi_info -p tcp (FI_TCP_IFACE=lo)"; FI_TCP_IFACE=lo LD_LIBRARY_PATH=$libs "$libs/fi_info" -p tcp | sed -n 1,20p
    APP_TEST_FABRIC_LIBS=$libs pytest_gpu tests/gpu/test_gpu_fabric.py -k "not all_reduce_perf"
}

nccl_tests_part() {
    wait "$build_pid"
    cat "$work/nccl-tests-build.log"
    if [[ ! -x $nccl_tests/all_reduce_perf ]]; then
        echo "nccl-tests: not built"; return 1
    fi
    # all_reduce_perf, by itself and as the check starts it (found on PATH), with the libraries it was built against
    local built_against
    built_against=$(cat "$nccl_tests/library-path")
    local -x LD_LIBRARY_PATH=$built_against${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    echo "== all_reduce_perf -b 8 -e 1G -f 4 -g 1"
    timeout 120 "$nccl_tests/all_reduce_perf" -b 8 -e 1G -f 4 -g 1
    APP_TEST_NCCL_TESTS=$nccl_tests pytest_gpu tests/gpu/test_gpu_fabric.py -k all_reduce_perf
}

# One steady step under the profiler (optimizer step wait+2, after compilation, not app.train's last) of each
# case that missed its target, as bench.gpu_train's `misses` names them (every case in a dry run)
profile_app() {  # profile_app WHO SIZE MICRO_BATCH APP_TRAIN_OVERRIDES...
    local who=$1 size=$2 batch=$3 wait=5 tokens=2000000 extra=()
    shift 3
    if ((dry)); then size=tiny batch=2 wait=2 tokens=40000 extra=(train.compile=false); fi
    capped "$py" -m torch.distributed.run --standalone --nproc-per-node=1 -m bench.gpu_profile app \
        "$work/profile-$who" --wait "$wait" -- --config gpt2-h100 run.dir="$work/profile-run-$who" \
        model.size="$size" train.batch_size="$batch" train.max_steps=$((wait + 3)) data.tokens="$tokens" \
        snapshot.every=0 run.log_every=1 run.progress=lines "$@" "${extra[@]}"
}
profile_part() {
    local misses kind size batch found=0 wait=5 hand_extra=(--compile) every=()
    ((dry)) && wait=2 hand_extra=() every=(--all)
    misses=$("$py" -m bench.gpu_train misses "$results" "${every[@]}") || return
    while read -r kind size batch; do
        [[ -n $kind ]] || continue
        found=1
        if [[ $kind == pairs && ! -e $work/profile-app.json ]]; then
            echo "== profile: app.train against the hand loop, $size at micro-batch $batch"
            profile_app app "$size" "$batch" || return
            ((dry)) && size=tiny batch=2
            capped "$py" -m bench.gpu_profile hand "$work/profile-hand" "$size" "$batch" --wait "$wait" \
                "${hand_extra[@]}" || return
            "$py" -m bench.gpu_profile compare "$work/profile-compare.txt" "$work/profile-app.json" \
                "$work/profile-hand.json"
            cat "$work/profile-compare.txt" "$work/profile-app.txt" "$work/profile-hand.txt" >>"$figures/profile.txt"
        elif [[ $kind == sharded && ! -e $work/profile-fsdp.json ]]; then
            echo "== profile: app.train under fsdp, $size at micro-batch $batch"
            profile_app fsdp "$size" "$batch" dist.strategy=fsdp train.compile_scope=blocks || return
            cat "$work/profile-fsdp.txt" >>"$figures/profile.txt"
        fi
    done <<<"$misses"
    ((found)) || echo "profile: every measured case met its target; nothing to profile"
    for who in app hand fsdp; do
        [[ -e $work/profile-$who.trace.json.gz ]] && mv "$work/profile-$who.trace.json.gz" "$figures/"
    done
    return 0
}

gpu_train() {  # gpu_train ARGS...: bench.gpu_train, its figures into results.jsonl
    local dry_flag=()
    ((dry)) && dry_flag=(--dry-run)
    capped "$py" -m bench.gpu_train "${dry_flag[@]}" --results "$results" "$@"
}

# The multi-rank paths in the order they answer most: each pytest node id, run in the order given
multirank=(
    "tests/gpu/test_gpu_ranks.py::test_two_ranks_killed_and_restarted_end_bit_identical_to_an_uninterrupted_run[fsdp-compiled]"
    "tests/gpu/test_gpu_ranks.py::test_gpt2_trains_on_two_ranks_with_each_strategy_compiled[fsdp-blocks]"
)
multirank_part() {
    if ((dry)); then  # no GPU: prove that every node id names a test (pytest fails on one that does not)
        capped "$py" -m pytest -p no:cacheprovider -q --collect-only "${multirank[@]}"
    else
        pytest_gpu "${multirank[@]}"
    fi
}

run_part() {
    case $1 in
        pairs) gpu_train --parts pairs --runs "${pairs_runs[@]}" --who plain app-model --pairs 1 --steps 20 \
                   --warmup 8 ;;
        mfu) gpu_train --parts mfu --mfu "${mfu_runs[@]}" --mfu-grad-accum 2 --steps 12 --warmup 6 ;;
        sharded) gpu_train --parts sharded --sharded gpt2:8 --steps 20 --warmup 8 ;;
        multirank) multirank_part ;;
        profile) profile_part ;;
        fabric) fabric ;;
        nccl-tests) nccl_tests_part ;;
        ranks) pytest_gpu tests/gpu/test_gpu_ranks.py ;;
        paths) pytest_gpu tests/gpu/test_gpu_paths.py ;;
        tests) pytest_gpu tests/gpu/test_gpu_ranks.py && pytest_gpu tests/gpu/test_gpu_paths.py ;;
    esac
}

for spec in "$@"; do
    part=${spec%%:*}
    part_deadline=$deadline
    [[ $spec == *:* ]] && part_deadline=$((SECONDS + ${spec#*:} < deadline ? SECONDS + ${spec#*:} : deadline))
    started=$SECONDS
    echo "== $part ($((part_deadline - SECONDS)) s for it, $((deadline - SECONDS)) s left)" | tee -a "$log"
    run_part "$part" 2>&1 | tee -a "$log"
    rc=${PIPESTATUS[0]}
    note=""
    ((rc == 124 || rc == 137)) && note=" (its time ran out)"
    echo "== $part: exit $rc after $((SECONDS - started)) s$note" | tee -a "$log"
    "$py" -c 'import json, sys; print(json.dumps({"part": sys.argv[1], "exit": int(sys.argv[2]),
"seconds": int(sys.argv[3]), "dry_run": sys.argv[4] == "1"}))' "$part" "$rc" $((SECONDS - started)) "$dry" >>"$results"
done

# The rest in one archive: the run folders without snapshots (NCCL's logs, metrics, summaries), the profiler's
# operator tables as JSON
tar -czf "$figures/session-runs.tgz" -C "$work" --exclude='*.pt' --exclude='*.distcp' --exclude='snapshots' \
    --exclude='*.trace.json.gz' --exclude='nccl-tests' . 2>/dev/null
for file in "$figures"/*; do  # a file too large to copy off easily is said, not lost silently
    (($(stat -c %s "$file") > 16 * 2**20)) && echo "warning: $file is over 16 MiB" >>"$log"
done
rm -rf "$work"
exit 0
