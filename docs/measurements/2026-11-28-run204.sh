#!/usr/bin/env bash
# Device run 204 (nvidia-h100-x2): each GPU posts the mean share time of the passes timed at its width
# since its last posting, not one pass's (run 203: one pass wandered 2.4-5.0 ms on GPU 0 at 1M and the
# shares settled at a balance of 0.89). The two-GPU and share tests, then bench tree 1M, 4M, 16M on one
# and two GPUs and the viewer at 1M (run 195 before: 1M 4.319 / 3.721 ms, 16M 49.797 / 30.764 ms,
# viewer 148.6-148.8 / 230.9-233.9 fps).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="PASSED|FAILED|Failure|Expected|Which is"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step tests 200 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='TwoGpus.*:PeerGate*:ForceShares.*'
SHOW="^ +[0-9]+ symm|GPU shares|rror"
A="bench --backend cuda --gravity tree --dt 0.0625 --softening 0.05 --repeats 5 --warmup 10"
for n in 1M 4M 16M; do
  step b$n-1 60 $D/nbody $A -n $n
  step b$n-2 60 $D/nbody $A -n $n --gpus 2
done
step b1M-2-again 60 $D/nbody $A -n 1M --gpus 2
SHOW="frames 2\.\.|rror"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 1048576 --frames 600"
for k in a b; do
  step v1-$k 90 $D/nbody $V
  step v2-$k 90 $D/nbody $V --gpus 2
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
