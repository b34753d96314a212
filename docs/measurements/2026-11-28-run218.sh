#!/usr/bin/env bash
# Device run 218 (nvidia-h200): the new test of the j-split reduction's order
# (HermiteCuda.TheSplitsPartialsAreAddedInTheirDocumentedOrderToTheBit: both kernels, with and without
# the snap, exact against a host reference), then the other Hermite CUDA tests.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|Expected|Which is|trace|splits"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step order-test 120 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda.TheSplitsPartialsAreAddedInTheirDocumentedOrderToTheBit'
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda.*:HermiteDeviceBlocks.*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
