#!/usr/bin/env bash
# Device run 90 (nvidia-h100-x2): the Hermite engine with the j-particles split over two GPUs
# (Sapporo's scheme: tests, the 128K Plummer to t = 0.25 on one GPU and on two, libg6 with
# G6_GPUS=2), and the viewer's interop path with the steps overlapped with the drawing (one GPU
# and two, 1M tree, 1080p, one step per frame; 16M tree), the render tests, and NCCL's transport
# between two MPI ranks.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|blocks|Hermite force engine|fps_report|GPU:|gpus:|error|energy error|dE/E|took|wall|engine"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step hermite-tests 180 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteTwoGpus.*:HermiteCuda.*:TwoGpus.*'
step render-tests 150 $D/nbody_render_tests --gtest_color=no
H="$D/nbody run --integrator hermite4 --scene $D/scenes/plummer.toml --bodies 131072 --t-end 0.25 --backend cuda"
step hermite128k-1gpu 200 $H --out $OUT/h1.csv
step hermite128k-2gpu 200 $H --gpus 2 --out $OUT/h2.csv
$D/nbody run --backend cpu --scene $D/scenes/plummer.toml --bodies 8192 --steps 0 --out $OUT/g6in.csv > /dev/null 2>&1
step g6-1gpu 120 env G6_VERBOSE=1 $D/g6_hermite $OUT/g6in.csv 0.25
step g6-2gpu 120 env G6_VERBOSE=1 G6_GPUS=2 $D/g6_hermite $OUT/g6in.csv 0.25
step g6-badgpus 30 env G6_GPUS=7 $D/g6_hermite $OUT/g6in.csv 0.25
V="$D/nbody view --headless --backend cuda --scene $D/scenes/milky-way-andromeda.toml --gravity tree --steps-per-frame 1 --no-ui --size 1920x1080"
step view1m-1gpu 60 $V --bodies 1048576 --frames 300 --screenshot $OUT/view1m-1gpu.png
step view1m-2gpu 60 $V --bodies 1048576 --frames 300 --gpus 2 --screenshot $OUT/view1m-2gpu.png
step view16m-1gpu 90 $V --bodies 16777216 --frames 60
step view16m-2gpu 90 $V --bodies 16777216 --frames 60 --gpus 2
M="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE -x NCCL_DEBUG=INFO -x NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET"
step nccl-mpi 120 $M $D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100
grep -E "via|Channel 00|P2P|SHM|NET/" $L/nccl-mpi.log | head -8
step nccl-gpus 120 env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P $D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100 --gpus 2
grep -E "via|Channel 00|P2P" $L/nccl-gpus.log | head -6
rm -f $OUT/h1.csv $OUT/h2.csv $OUT/g6in.csv
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
