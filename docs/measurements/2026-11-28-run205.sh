#!/usr/bin/env bash
# Device run 205 (two GPUs): the review's mend (one take_part/what_of in peer_meeting.hpp for the
# backend's and the Hermite engine's GPU threads; one get_within in the tests): the failing-GPU,
# two-GPU, gate, share and Hermite block tests, and Hermite 128K on one and two GPUs (same blocks and
# energy as before).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|Expected|Which is|failing:"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus.*:PeerGate*:ForceShares.*:HermiteDeviceBlocks.*:HermiteTwoGpus*'
SHOW="hermite4 \(|relative energy|rror"
H="run --integrator hermite4 --scene scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
step h1 60 $D/nbody $H
step h2 60 $D/nbody $H --gpus 2
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
