#!/usr/bin/env bash
# Device run 4: CUDA tests after the table change (bounding-box grid from 192K), the defaults,
# a 1M every-pair check of p1024 q1 B4 and the p512 companion, --check, the viewer at 256K.
set -u
t0=$SECONDS
tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D NBODY_AUTOTUNE_CACHE=$OUT/cache.json
export NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
S=$D/scenes/milky-way-andromeda.toml
timeout 150 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/cuda-tests.log 2>&1; echo "cuda tests: exit $? at $((SECONDS-t0)) s"
grep -E "^\[  (PASSED|FAILED) |FAILED|Failure|actual" $OUT/cuda-tests.log | head -30
b() { local name=$1; shift; timeout 150 $D/nbody bench --backend cuda --json $OUT/$name.json "$@" > $OUT/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ *[0-9]+ |check|error" $OUT/$name.log | head -30; }
b default --bodies 64K,256K,1M --repeats 3
b default-scene --scene $S --bodies 256K --repeats 3
b full-1M --bodies 1M --unroll 8,16,32 --block 1024 --threads-per-body 1,2 --bodies-per-thread 4 --repeats 2 --steps 2
b comp-1M --bodies 1M --unroll 32 --block 512 --threads-per-body 1 --bodies-per-thread 4 --repeats 2 --steps 2
b check-64K --bodies 64K --pairs full,symmetric,symmetric-bb --check --repeats 1
b check-scene-64K --scene $S --bodies 64K --pairs symmetric-bb --bodies-per-lane 8 --check --repeats 1
echo "=== viewer 256K (t = $((SECONDS-t0)) s)"
timeout 60 $D/nbody view --headless --scene $S --bodies 262144 --steps-per-frame 1 --frames 200 --no-ui --size 1920x1080 > $OUT/view-256k.log 2>&1
echo "exit $?"; grep -E "^nbody: kernel|frames 2|fps_report" $OUT/view-256k.log | cut -c1-220
echo "end at $((SECONDS-t0)) s"
