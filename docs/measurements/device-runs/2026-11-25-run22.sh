#!/usr/bin/env bash
# Device run 22: the tree code's page-locked host copies now owned by cuda::PinnedBuffer (was raw
# cudaMallocHost / cudaFreeHost): the CUDA tests (GpuTree.* among them) and a tree run in the viewer.
source docs/measurements/device-runs/unpack.sh
timeout 240 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
W=$(mktemp -d)
(cd $W && timeout 120 $D/nbody view --headless --backend cuda --gravity tree --bodies 1048576 --steps-per-frame 1 --frames 100 --no-ui --size 1920x1080 > $OUT/logs/tree-1m.log 2>&1)
echo "--- tree 1M viewer: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^fps_report|tree" $OUT/logs/tree-1m.log | cut -c1-200 | head -5
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
