#!/usr/bin/env bash
# Everything the GPU figures need, in parts, as one command on a GPU machine of one GPU:
#   bash bench/gpu_session.sh [PART[:SECONDS]...]     (no part: the plan below)
#   GPU_SESSION_DRY_RUN=1 bash bench/gpu_session.sh    (the same plumbing on a CPU, tiny sizes: tests/bench)
# The plan, most informative first (the parts share one deadline, GPU_SESSION_S seconds from the start,
# default 560; PART:SECONDS also caps one part; what a part measured is kept when its time runs out):
# profile:   torch.profiler on one steady step of app.train and of the hand loop (gpt2-medium, micro-batch
#            16): the top operators of each and those whose time differs most (bench.gpu_profile);
# pairs:     app.train against the hand loop with and without DDP at world size 1, gpt2-medium then gpt2
#            (bench.gpu_train --parts pairs);
# multirank: two NCCL ranks on the one GPU, each its own NCCL_HOSTID: a SIGKILL resume ending bit-identical
#            (ddp, deterministic), a stopped rank named with its step, the same resume under fsdp, compiled
#            gpt2 on two ranks (tests/gpu/test_gpu_ranks.py);
# mfu:       gpt2-xl at micro-batch 16, sequence 2048 then 1024, activation checkpointing where the step
#            does not fit without it (bench.gpu_train --parts mfu).
# Other parts: fabric (the CUDA image's aws-ofi-nccl plugin and libfabric), nccl-tests (all_reduce_perf
# built here against this host's CUDA and NCCL; both need .gpu-carry/ from `bash bench/gpu_fabric_libs.sh
# IMAGE.sif`), ranks (all of tests/gpu/test_gpu_ranks.py), paths (tests/gpu/test_gpu_paths.py), tests (both),
# sharded (fsdp against ddp at world size 1 and 2).
# GPU_SESSION_PAIRS and GPU_SESSION_MFU replace the cases of pairs and mfu (a later call goes on with the
# ones the first did not reach: GPU_SESSION_PAIRS=gpt2:16 bash bench/gpu_session.sh pairs).
# Output goes to $OUT, else ./gpu-session, as at most 8 files of at most 16 MiB (what a GPU machine's
# folder gives back): session-machine.txt (versions), session.log (every part's output), results.jsonl
# (every figure as it came, and each part's exit status and seconds), profile.txt and the two chrome traces
# profile-app.trace.json.gz and profile-hand.trace.json.gz, session-runs.tgz (the tests' run folders without
# snapshots, the profiler's operator tables as JSON).
set -uo pipefail
parts="profile, pairs, multirank, mfu, fabric, nccl-tests, ranks, paths, tests, sharded"
plan=(profile:150 pairs:140 multirank:150 mfu)
read -ra pairs_runs <<<"${GPU_SESSION_PAIRS:-gpt2-medium:16 gpt2:16}"  # SIZE:MICRO_BATCH..., in this order
read -ra mfu_cases <<<"${GPU_SESSION_MFU:-gpt2-xl:16:2048 gpt2-xl:16:1024}"  # SIZE:MICRO_BATCH:SEQUENCE..., in order
dry=${GPU_SESSION_DRY_RUN:-0}
py=${PYTHON:-python3}
out=${OUT:-gpu-session}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.." || exit
(($#)) || set -- "${plan[@]}"
for spec in "$@"; do
    [[ ", $parts, " == *", ${spec%%:*}, "* ]] ||
        { echo "bash bench/gpu_session.sh: unknown part '${spec%%:*}' (parts: $parts)" >&2; exit 2; }
done
export PYTHONUNBUFFERED=1
deadline=$((SECONDS + ${GPU_SESSION_S:-560}))
part_deadline=$deadline
left() { echo $((part_deadline - SECONDS > 5 ? part_deadline - SECONDS : 5)); }
# A part stopped at its deadline ends with everything it started: timeout puts itself in a process group
# of its own and signals the whole group (coreutils src/timeout.c: setpgid(0, 0), then send_sig(0, sig)),
# torchrun's workers and the tests' agents included; -k: SIGKILL to what is left 15 s later.
capped() { timeout -k 15 "$(left)" "$@"; }
work=$(mktemp -d /tmp/gpu-session.XXXXXX)
basetemp=$work/tests
mkdir -p "$basetemp"  # pytest makes only the last folder of --basetemp
log=$out/session.log
results=$out/results.jsonl
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
  nproc; } 2>&1 | tee "$out/session-machine.txt"

# nccl-tests, built while the parts before it run: only all_reduce_perf, only this GPU's architecture,
# without MPI (one process drives the GPU; no launcher exists here), against the NCCL that torch loads here
# (the nvidia-nccl wheel) and this host's CUDA.
nccl_tests=/tmp/nccl-tests/build
build_nccl_tests() {
    local nccl cuda cudart arch
    nccl=$("$py" -c 'import nvidia.nccl as n; print(list(n.__path__)[0])') || return
    cuda=$(dirname "$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")
    cudart=$(find -L "$cuda" -name 'libcudart.so*' -print -quit 2>/dev/null)
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | sed -n 1p | tr -d .)
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
    (time build_nccl_tests) >"$work/nccl-tests-build.log" 2>&1 &
    build_pid=$!
fi

fabric() {
    local libs=$PWD/.gpu-carry/fabric-libs
    if [[ ! -e $libs/libnccl-net.so ]]; then
        echo "fabric: no $libs (bash bench/gpu_fabric_libs.sh)"; return 1
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

# One steady step of each under the profiler: optimizer step wait+2, after compilation, not app.train's last
profile_part() {
    local size=gpt2-medium batch=16 wait=5 tokens=2000000 app_extra=() hand_extra=(--compile)
    if ((dry)); then size=tiny batch=2 wait=2 tokens=40000 app_extra=(train.compile=false) hand_extra=(); fi
    capped "$py" -m torch.distributed.run --standalone --nproc-per-node=1 -m bench.gpu_profile app \
        "$work/profile-app" --wait "$wait" -- --config gpt2-h100 run.dir="$work/profile-run" model.size="$size" \
        train.batch_size="$batch" train.max_steps=$((wait + 3)) data.tokens="$tokens" snapshot.every=0 \
        run.log_every=1 run.progress=lines "${app_extra[@]}" || return
    capped "$py" -m bench.gpu_profile hand "$work/profile-hand" "$size" "$batch" --wait "$wait" "${hand_extra[@]}" ||
        return
    "$py" -m bench.gpu_profile compare "$work/profile-compare.txt" "$work/profile-app.json" "$work/profile-hand.json"
    cat "$work/profile-compare.txt" "$work/profile-app.txt" "$work/profile-hand.txt" >"$out/profile.txt"
    for who in app hand; do
        [[ -e $work/profile-$who.trace.json.gz ]] && mv "$work/profile-$who.trace.json.gz" "$out/"
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
    "tests/gpu/test_gpu_ranks.py::test_two_ranks_killed_and_restarted_end_bit_identical_to_an_uninterrupted_run[ddp]"
    "tests/gpu/test_gpu_ranks.py::test_a_stopped_rank_among_two_on_one_gpu_is_named_and_the_job_ends_with_exit_4"
    "tests/gpu/test_gpu_ranks.py::test_two_ranks_killed_and_restarted_end_bit_identical_to_an_uninterrupted_run[fsdp]"
    "tests/gpu/test_gpu_ranks.py::test_gpt2_trains_on_two_ranks_with_each_strategy_compiled[ddp-model]"
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
        profile) profile_part ;;
        pairs) gpu_train --parts pairs --runs "${pairs_runs[@]}" --who plain app-model ddp ddp-stats --pairs 1 \
                   --steps 20 --warmup 8 ;;
        multirank) multirank_part ;;
        mfu) gpu_train --parts mfu --mfu "${mfu_cases[@]}" --mfu-grad-accum 2 --steps 12 --warmup 6 ;;
        fabric) fabric ;;
        nccl-tests) nccl_tests_part ;;
        ranks) pytest_gpu tests/gpu/test_gpu_ranks.py ;;
        paths) pytest_gpu tests/gpu/test_gpu_paths.py ;;
        tests) pytest_gpu tests/gpu/test_gpu_ranks.py && pytest_gpu tests/gpu/test_gpu_paths.py ;;
        sharded) gpu_train --parts sharded --sharded gpt2:8 --steps 20 --warmup 8 ;;
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

# The rest in one archive: the tests' run folders without snapshots (NCCL's logs, metrics, summaries),
# the profiler's operator tables as JSON
tar -czf "$out/session-runs.tgz" -C "$work" --exclude='*.pt' --exclude='*.distcp' --exclude='snapshots' \
    --exclude='*.trace.json.gz' . 2>/dev/null
for file in "$out"/*; do  # what would not come back is said, not lost silently
    (($(stat -c %s "$file") > 16 * 2**20)) && echo "warning: $file is over 16 MiB: it will not come back" >>"$log"
done
rm -rf "$work"
exit 0
