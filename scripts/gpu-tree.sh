#!/usr/bin/env bash
# The tree code on the GPU machine (issue 16, docs/TREE.md): GPU tree tests, then the measurements
# of docs/TREE.md's table. Run from a folder holding nbody, nbody_cuda_tests, lib/, scenes/ and
# shaders/ (the carried build). STAGES picks what runs: tests, accuracy, scaling, energy, viewer.
#   STAGES="tests accuracy" scripts/gpu-tree.sh
# Logs go to $OUT (default ./gpu-tree-out); each stage has its own timeout.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-tree-out}
STAGES=${STAGES:-tests accuracy scaling energy viewer}
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NBODY_EXECUTABLE="$PWD/nbody" NBODY_SOURCE_DIR="$PWD"
t_start=$SECONDS
run() {  # run NAME TIMEOUT CMD...
    local name=$1 limit=$2; shift 2
    echo "=== $name (+$((SECONDS - t_start)) s): $*"
    timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
    local rc=$?
    tail -n "${TAIL:-25}" "$OUT/$name.log"
    echo "--- $name: exit $rc in $((SECONDS - t_start)) s total"
}
has() { [[ " $STAGES " == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv,noheader
SCENE=scenes/milky-way-andromeda.toml
has tests && run tests 240 ./nbody_cuda_tests --gtest_filter='GpuTree*:CudaBackend*Step*' --gtest_brief=1
has accuracy && run accuracy-1M 200 ./nbody accuracy --gravity tree --backend cuda --scene $SCENE --bodies 1M \
    --theta 0.3,0.4,0.5,0.6,0.7 --sample 4096 --json "$OUT/accuracy-1M.json"
has scaling && run scaling 300 ./nbody accuracy --gravity tree --backend cuda --scene $SCENE \
    --bodies 256K,512K,1M,2M,4M,8M,16M --theta 0.5 --sample 256 --no-direct --json "$OUT/scaling.json"
has energy && run energy-1M 330 ./nbody run --scene $SCENE --bodies 1M --backend cuda --gravity tree --steps 4100
has viewer && __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json \
    run viewer-1M 120 ./nbody view --headless --backend cuda --bodies 1M --gravity tree --size 1920x1080 \
    --steps-per-frame 1 --frames 300
exit 0
