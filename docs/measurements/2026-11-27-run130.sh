#!/usr/bin/env bash
# Device run 130 (nvidia-h100-x2): main at c81dbea.
# - NCCL communicators connect their ranks at creation (NCCL_RUNTIME_CONNECT=0): the 4M tree run under
#   mpirun against --gpus 2 four times each, alternately (run 129: the first step 86-606 ms under mpirun
#   against 34 ms), and Hermite4 128K to t = 0.25 (run 125: mpirun +8 / +12 %).
# - The viewer's automatic energy line of a cuda every-pair run on the GPU (131,072 and 1M bodies), the
#   new tests (CudaGlInterop.DirectRuns..., NcclCommunicator.ConnectsTheRanks...).
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step cuda-tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='NcclCommunicator.*:TwoGpus.*:Hermite*'
step render-tests 240 $D/nbody_render_tests --gtest_color=no --gtest_filter='CudaGlInterop.*'
SHOW="in [0-9.]+ s,|by step call"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in a b c d; do
  step tree4m-mpi-$k 60 $MPI $RT
  step tree4m-gpus-$k 60 $RT --gpus 2
done
SHOW="in [0-9.]+ s:|energy error"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
step h128k-1 40 $D/nbody $H
for k in a b; do
  step h128k-gpus2-$k 40 $D/nbody $H --gpus 2
  step h128k-mpi2-$k 60 $MPI $D/nbody $H
done
SHOW="energy line|fps_report"
for n in 131072 1048576; do
  step view-direct-$n 120 env NBODY_SIM_THREAD=1 $D/nbody view --headless --backend cuda --gravity direct --size 640x360 \
    --frames 300 --bodies $n --scene $PWD/scenes/plummer.toml
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
