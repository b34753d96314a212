#!/usr/bin/env bash
# Device run 83 (issue 17's closing table, at the head): every target in one call with the product
# as committed (no kernel options unless a line says so): every pair at 256K and 1M (default and
# flags 5), each pair once (the default pair mode), milky-way-andromeda.toml at 256K every pair,
# the headless viewer on that scene at 256K with one step per frame, and the CUDA tests.
source docs/measurements/device-runs/unpack.sh; W=$(mktemp -d)
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
b() { local name=$1; shift; timeout 150 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ +[0-9]+ |check|error" $OUT/logs/$name.log | head -8; }
b every-pair --bodies 256K,1M --pairs full
b flags5 --bodies 256K,1M --pairs full --unroll 32 --block 1024 --threads-per-body 2 --bodies-per-thread 4 --kernel-flags 5 --split balanced
b default --bodies 256K,1M
b scene-every-pair --scene scenes/milky-way-andromeda.toml --bodies 256K --pairs full
b check --bodies 64K --pairs full --check
(cd $W && timeout 120 $D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --bodies 262144 \
  --steps-per-frame 1 --frames 200 --no-ui --size 1920x1080 > $OUT/logs/viewer-mw-256k.log 2>&1)
echo "--- viewer: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^fps_report|scene:|kernel" $OUT/logs/viewer-mw-256k.log | cut -c1-200 | head -6
timeout 300 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED" $OUT/logs/cuda-tests.log | head -8
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
