#!/usr/bin/env bash
# Device run 220 (nvidia-h200-x2), typed as one command in the device call: the pair of Hermite block
# tests HermiteDeviceBlocks.TwoGpusTake* and HermiteDeviceBlocks.AGpuThatFailsStops* twenty times, each
# run killed at 25 s (a pass takes ~4 s), to count how often the failing-GPU test hangs (run 219 saw
# it once). Before it, the failing-GPU tests alone three times (all passed).
source docs/measurements/device-runs/unpack-pk.sh >/dev/null 2>&1; p=0; h=0
for k in $(seq 1 20); do
  timeout -s KILL 25 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteDeviceBlocks.TwoGpusTake*:HermiteDeviceBlocks.AGpuThatFailsStops*' > $OUT/r$k.log 2>&1
  rc=$?; if [ $rc = 0 ]; then p=$((p+1)); rm $OUT/r$k.log; else h=$((h+1)); echo "try $k exit $rc"; tail -3 $OUT/r$k.log; fi
done; echo "passed $p, failed or hung $h"
