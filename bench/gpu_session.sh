#!/usr/bin/env bash
# Everything the GPU issue measures, in parts that each fit one device-tool command (10 minutes):
#   bash bench/gpu_session.sh tests|pairs|scale [OUT_DIR]
# tests: the GPU-marked tests, several NCCL ranks on the one GPU first (tests/gpu/test_gpu_ranks.py);
# pairs: app.train against the hand loop (bench.gpu_train --parts pairs);
# scale: larger presets for MFU, then fsdp against ddp at world size 1 and 2 (--parts sizes sharded).
# Logs and JSON-lines results go to OUT_DIR (default $OUT, the device tool's folder, else ./gpu-session).
set -uo pipefail
part=${1:?usage: bash bench/gpu_session.sh tests|pairs|scale [OUT_DIR]}
out=${2:-${OUT:-gpu-session}}
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.." || exit
export PYTHONUNBUFFERED=1
# Versions first: the figures mean nothing without them
{ nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  nproc; } 2>&1 | tee "$out/$part-machine.txt"
case $part in
    tests)
        timeout 560 python3 -m pytest -p no:cacheprovider -m gpu -x -q -rs tests/gpu/test_gpu_ranks.py \
            tests/gpu/test_gpu_paths.py 2>&1 | tee "$out/tests.log" ;;
    pairs)
        timeout 570 python3 -m bench.gpu_train --parts pairs --runs gpt2:16 gpt2-medium:16 --variants model blocks \
            --pairs 2 --results "$out/pairs.jsonl" 2>&1 | tee "$out/pairs.log" ;;
    scale)
        timeout 570 python3 -m bench.gpu_train --parts sizes sharded --sizes gpt2-large:8 gpt2-xl:8 \
            --sharded gpt2:8 gpt2-medium:8 --results "$out/scale.jsonl" 2>&1 | tee "$out/scale.log" ;;
    *) echo "bash bench/gpu_session.sh: unknown part '$part' (tests, pairs or scale)" >&2; exit 2 ;;
esac
