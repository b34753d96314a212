#!/usr/bin/env bash
# The measurements behind the default-config table (sim/src/kernel_defaults.cpp) and issue 17's
# targets, on the GPU machine, in one call (docs/PERFORMANCE.md section 12): the CUDA tests of the
# force kernels, the A/B of the uniform-mass tiles and of the register budgets (flags 3, 7, 15, 23),
# pruned every-pair sweeps and each-pair-once sweeps from 4K to 1M on Plummer spheres, the galaxy
# scene at 256K, the default config without options, cuda-samples-style figures. Builds nothing:
#
#   BUILD=build-device scripts/gpu-defaults.sh      # OUT=<folder> (default ./gpu-defaults-out)
#
# STAGES (default "tests ab sweep scene default") picks stages. Logs and JSON in $OUT/defaults.tgz;
# a summary table (one line per run: N, scene, config, interactions/s) last on stdout.
set -uo pipefail

BUILD=${BUILD:-build-device}
OUT=${OUT:-$PWD/gpu-defaults-out}
STAGES=${STAGES:-tests ab sweep scene default}  # also: companions viewer
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

NBODY=$PWD/$BUILD/bin/nbody
TESTS=$PWD/$BUILD/bin/nbody_cuda_tests
SCENE=$PWD/$BUILD/bin/scenes/milky-way-andromeda.toml
export LD_LIBRARY_PATH="$PWD/$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export NBODY_EXECUTABLE="$NBODY" NBODY_SOURCE_DIR="$PWD"
export NBODY_AUTOTUNE_CACHE="$work/autotune-cache.json"
unset NBODY_FORCE_GRID NBODY_FORCE_FLAGS

start=$SECONDS
stage() { echo; echo "=== $* (t = $((SECONDS - start)) s)"; }
want() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }
bench() {  # bench NAME TIMEOUT ARGS...
    local name=$1 limit=$2; shift 2
    timeout "$limit" "$NBODY" bench --backend cuda --json "$work/bench-$name.json" "$@" >"$work/bench-$name.log" 2>&1
    echo "--- bench-$name: exit $?"
    grep -E "^ *[0-9]+ " "$work/bench-$name.log" | sort -t' ' -k1,1n | awk '{print}' | head -60
}

stage device
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee "$work/device.txt"

if want tests; then
    stage "CUDA tests: force kernels, tile masses, defaults, pair modes"
    timeout 240 "$TESTS" --gtest_color=no --gtest_brief=1 \
        --gtest_filter='*CudaForce*:CudaKernelVariants*:KernelDefaults*:PairMode*:CudaBackend*:CudaLeapfrog*:BenchJson*' \
        >"$work/cuda-tests.log" 2>&1
    echo "cuda tests: exit $?"; grep -E "^\[  (PASSED|FAILED) |tests ran|FAILED" "$work/cuda-tests.log" | head -20
fi

if want ab; then
    stage "A/B: flags 3 (v2), 7 (uniform-mass tiles), 15 (64-register budget), 23 (128), Plummer"
    bench ab-256k 150 --bodies 256K --unroll 32 --block 1024 --threads-per-body 2 --bodies-per-thread 4 \
        --kernel-flags 3,7,15 --repeats 3
    bench ab-256k-q1 150 --bodies 256K --unroll 16 --block 512,1024 --threads-per-body 1 --bodies-per-thread 4 \
        --kernel-flags 3,7,15,23 --repeats 3
    bench ab-64k 100 --bodies 64K --unroll 8 --block 512 --threads-per-body 2,4 --bodies-per-thread 4 \
        --kernel-flags 3,7,15,23 --repeats 3
fi

if want sweep; then
    stage "every-pair pruned sweeps and each-pair-once, Plummer 4K .. 1M"
    for n in 4K 8K 16K 32K 64K; do
        bench sweep-$n 120 --bodies $n --unroll 4,8,16,32 --block 256,512,1024 --threads-per-body 1,2,4,8 \
            --bodies-per-thread 2,4 --repeats 3 --min-ms 10
        bench sym-$n 60 --bodies $n --pairs symmetric --bodies-per-lane 2,4,8 --repeats 3 --min-ms 10
    done
    bench sweep-256K 240 --bodies 256K --unroll 8,16,32 --block 512,1024 --threads-per-body 1,2,4 \
        --bodies-per-thread 2,4 --repeats 3
    bench sym-256K 60 --bodies 256K --pairs symmetric,symmetric-bb --bodies-per-lane 2,4,8 --repeats 3
    bench sweep-1M 240 --bodies 1M --unroll 16,32 --block 1024 --threads-per-body 1,2 --bodies-per-thread 2,4 \
        --repeats 3 --steps 2
    bench sym-1M 120 --bodies 1M --pairs symmetric --bodies-per-lane 4,8 --repeats 3 --steps 2
fi

if want scene; then
    stage "milky-way-andromeda.toml at 64K and 256K: every pair (flags 3 and 7) and each pair once"
    bench scene-256K 200 --scene "$SCENE" --bodies 64K,256K --unroll 32,16 --block 1024 --threads-per-body 1 \
        --bodies-per-thread 2,4 --kernel-flags 3,7 --repeats 3
    bench scene-sym-256K 100 --scene "$SCENE" --bodies 256K --pairs symmetric --bodies-per-lane 4,8 --repeats 3
fi

if want default; then
    stage "the default config, no kernel options (Plummer and the scene; --pairs full: its every-pair part)"
    bench default 200 --bodies 16K,64K,256K,1M --repeats 3
    bench default-full 200 --bodies 16K,64K,256K,1M --pairs full --repeats 3
    bench default-scene 120 --scene "$SCENE" --bodies 256K --repeats 3
fi

if want companions; then
    stage "p = 512 with the 128-register companions against p = 1024, Plummer and the scene"
    bench comp-64K 120 --bodies 64K --unroll 8,16,32 --block 512,1024 --threads-per-body 1,2,4 \
        --bodies-per-thread 2,4 --repeats 3 --min-ms 10
    bench comp-256K 200 --bodies 256K --unroll 8,16,32 --block 512 --threads-per-body 1,2,4 --bodies-per-thread 2,4 \
        --repeats 3
    bench comp-1M 150 --bodies 1M --unroll 16,32 --block 512 --threads-per-body 1 --bodies-per-thread 2,4 \
        --repeats 2 --steps 2
    bench comp-scene 150 --scene "$SCENE" --bodies 256K --unroll 16,32 --block 512 --threads-per-body 1 \
        --bodies-per-thread 2,4 --repeats 3
    bench sym-bb-1M 100 --bodies 1M --pairs symmetric-bb --bodies-per-lane 8 --repeats 2 --steps 2
fi

if want viewer; then
    stage "headless viewer, default options, one step per frame, 1920x1080, milky-way-andromeda.toml"
    for n in 65536 262144; do
        timeout 90 "$NBODY" view --headless --scene "$SCENE" --bodies $n --steps-per-frame 1 --frames 200 --no-ui \
            --size 1920x1080 >"$work/view-$n.log" 2>&1
        echo "N=$n: exit $?"; grep -E "kernel|fps_report|frames 2" "$work/view-$n.log" | cut -c1-300
    done
fi

tar czf "$OUT/defaults.tgz" -C "$work" .
stage "done: $OUT/defaults.tgz"
