#!/usr/bin/env bash
# Device run 150 (nvidia-h100-x4): issue 30's four GPUs at the head, which adds since the last four-GPU runs (118, 126,
# 127) the collective held until every GPU's share is done (PeerGate: run on two GPUs only) and the particles kept
# between steps in the viewer. Each against one GPU of the same machine in the same call: every pair 1M, tree 16M strong
# and 64M weak, Hermite4 128K and 512K, `run` tree 4M --gpus 4 against mpirun -np 4, the 16M viewer beside the loop on
# four GPUs; the multi-GPU tests.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure"
step tests 300 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='PeerGate.*:*TwoGpus*:ForceShares*:*Gpus*'
SHOW="^ +[0-9]+ (symm|full)|GPU shares|steps of dt|Failure|interactions/s"
step pairs1m-1 90 $D/nbody bench --backend cuda -n 1M --pairs full
step pairs1m-4 90 $D/nbody bench --backend cuda -n 1M --pairs full --gpus 4
T4="bench --backend cuda --gravity tree --repeats 3 --warmup 2 --dt 0.0625 --softening 0.05 --theta 0.5"
for k in a b; do
  step tree16m-1-$k 90 $D/nbody $T4 -n 16M
  step tree16m-4-$k 90 $D/nbody $T4 -n 16M --gpus 4
done
step tree64m-4 150 $D/nbody $T4 -n 64M --gpus 4
SHOW="in [0-9.]+ s:"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda"
step h128k-1 60 $D/nbody $H --bodies 131072
step h128k-4 60 $D/nbody $H --bodies 131072 --gpus 4
step h512k-1 120 $D/nbody $H --bodies 524288
step h512k-4 90 $D/nbody $H --bodies 524288 --gpus 4
SHOW="steps of dt|every rank ready|interrupted"
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in a b; do
  step tree4m-run-4-$k 60 $RT --gpus 4
  step tree4m-mpi-4-$k 60 mpirun --allow-run-as-root --bind-to none -np 4 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE $RT
done
SHOW="frames 2|frame times|step:|particles: drawn|gpus:"
V="view --headless --backend cuda --scene scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080 --bodies 16777216"
step view16m-4 120 env NBODY_SIM_THREAD=1 $D/nbody $V --frames 600 --gpus 4
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
