#!/usr/bin/env bash
# Device run 107 (nvidia-h100-x2): issue 29's two-GPU rows again after the walk by occupied slices
# (run 103: 1M tree 7.59 -> 6.45 ms on one H100) and the compute sprites (run 99): tree bench 1M and
# 16M, the viewer at 1M and 16M (tree, 1080p, one step per frame, no panels; in the loop and beside
# it), --gpus 2 against mpirun -np 2, and Hermite4 128K with --profile (the baseline for the
# Hermite split's change). Then, on one GPU, --bodies auto against the same scene asked for by
# hand (run 106: 94 frames/s against 120 in run 105).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|frames 2\.\.|GPU:|host:|GPU shares|^ +[0-9]+ +(tree|full)|ms/step|steps of dt|blocks,|energy error|profile:|GPU [0-9]|rror|gravity:|tree step"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
B="$D/nbody bench --backend cuda --gravity tree -n 1M,16M --dt 0.0625 --softening 0.05 --theta 0.5 --repeats 5 --warmup 20"
step tree-1gpu 120 $B
step tree-2gpu 120 $B --gpus 2
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-1gpu 60 $V --bodies 1048576 --frames 300
step view1m-2gpu 60 $V --bodies 1048576 --frames 300 --gpus 2 --screenshot $OUT/view1m-2gpu.png
step beside1m-1gpu 60 env NBODY_SIM_THREAD=1 $V --bodies 1048576 --frames 600
step beside1m-2gpu 60 env NBODY_SIM_THREAD=1 $V --bodies 1048576 --frames 600 --gpus 2
step view16m-1gpu 90 $V --bodies 16777216 --frames 60
step view16m-2gpu 90 $V --bodies 16777216 --frames 60 --gpus 2
step beside16m-2gpu 90 env NBODY_SIM_THREAD=1 $V --bodies 16777216 --frames 300 --gpus 2
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
step tree4m-1gpu 120 $RT
step tree4m-2gpu 120 $RT --gpus 2
step tree4m-mpi2 120 mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE $RT
S="--integrator hermite4 --scene $D/scenes/plummer.toml --bodies 131072 --t-end 0.25 --backend cuda --profile"
step hermite-1gpu 120 $D/nbody run $S
step hermite-2gpu 120 $D/nbody run $S --gpus 2
step auto-1gpu 60 $D/nbody view --headless --backend cuda --bodies auto --frames 300 --size 1920x1080 --no-ui
step asked-1gpu 60 $D/nbody view --headless --backend cuda --bodies 1048576 --gravity tree --steps-per-frame 1 --frames 300 --size 1920x1080 --no-ui
for f in auto-1gpu asked-1gpu view1m-1gpu; do echo "== $f"; grep -E "frames|GPU|host|looks|sprites|bodies" $L/$f.log | cut -c1-300 | head -20; done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
