#!/usr/bin/env bash
# Device run 24: DeviceBuffer and PinnedBuffer as one CudaBuffer template (device or page-locked
# memory as a policy): the CUDA tests, and the 32K Plummer Hermite run (run 21: 37.39 s on an H100).
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 240 $D/nbody_cuda_tests --gtest_color=no --gtest_brief=1 > $OUT/logs/cuda-tests.log 2>&1
echo "cuda tests: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^\[  (PASSED|FAILED) |FAILED|SKIPPED \]" $OUT/logs/cuda-tests.log | head -12
timeout 150 $D/nbody_hermite_bench plummer 32768 10 0.01 3.0517578125e-05 cuda ds > $OUT/logs/plummer32k.log 2>&1
echo "--- plummer32k: exit $? (t = $((SECONDS-t0)) s)"; tail -1 $OUT/logs/plummer32k.log
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
