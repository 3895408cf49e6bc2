#!/usr/bin/env bash
# The CUDA backend's device checks, for a machine with an NVIDIA GPU and the CUDA toolkit
# (no Qt needed): the full engine-selftest, then engine-bench over the shapes, weight and
# KV formats of the CUDA issue. Results go to OUT_DIR (selftest.txt, bench-*.json,
# summary.txt). Build first, engine-only:
#   cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DTOKENSCOPE_ENGINE_ONLY=ON \
#         -DCMAKE_CUDA_ARCHITECTURES=90a && cmake --build build-gpu
# Usage: cuda/gpu_checks.sh BUILD_DIR MODELS_DIR OUT_DIR
set -uo pipefail
build=${1:?BUILD_DIR} models=${2:?MODELS_DIR} out=${3:?OUT_DIR}
mkdir -p "$out"
export TOKENSCOPE_CUDA_PLUGIN="$build/cuda/libtokenscope_cuda.so"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}"
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
timeout 300 "$build/tests/cuda/engine-selftest" --models "$models" >"$out/selftest.txt" 2>&1
echo "engine-selftest exit $?" >>"$out/selftest.txt"
tail -n 1 "$out/selftest.txt" >"$out/summary.txt"
grep '^FAIL' "$out/selftest.txt" >>"$out/summary.txt"
# The engine's runtime formats with both KV formats; a GGUF's stored types (read as stored on
# the device) with an f16 cache.
for shape in baichuan2-7b baichuan2-13b; do
  for weights in int4 int8 f16 q4_k q5_k q6_k gguf-q4_0 gguf-q8_0 bf16; do
    for kv in f16 int8; do
      case "$weights:$kv" in *_k:int8 | gguf-*:int8 | bf16:int8) continue ;; esac
      name="bench-$shape-$weights-$kv"
      timeout 150 "$build/tests/bench/engine/engine-bench" --backend cuda --random "$shape" \
        --weights "$weights" --kv "$kv" --contexts 128,2048 --prefill 512,2048 \
        --gen-tokens 64 --repeat 3 --json >"$out/$name.json" 2>"$out/$name.err"
      echo "$name exit $?: $(tr -d '\n ' <"$out/$name.json" | head -c 600)" >>"$out/summary.txt"
      grep -o '"verify[59]_over_decode": *[0-9.]*' "$out/$name.json" | tr '\n' ' ' >>"$out/summary.txt"
      echo >>"$out/summary.txt"
    done
  done
done
cat "$out/summary.txt"
