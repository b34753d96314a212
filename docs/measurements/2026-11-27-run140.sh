#!/usr/bin/env bash
# Device run 140 (nvidia-h100-x2): main at the commit of this script.
# - Hermite4 128K under mpirun -np 2: is each rank's host pool (16 threads, as one process's) what makes the
#   replicated host phases slower than with --gpus 2 (run 131: +9.5 / +22 %)? The pool at 8 and 4 threads a rank
#   (NBODY_HERMITE_THREADS) against the default, alternately, with the machine's cores listed.
# - The Hermite start beside the window on the cuda engine (NBODY_SIM_THREAD=1 headless): first frame, the run
#   going on; the viewer's GPU tests and the Hermite viewer tests.
source docs/measurements/device-runs/unpack-pk.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
lscpu | grep -E "^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|Model name"
SHOW="in [0-9.]+ s:|ready to step|^  (predict|correct|commit|write|batch sort|select|queue|wait)"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
for k in a b; do
  step h128k-gpus2-$k 40 $D/nbody $H --gpus 2
  step h128k-mpi2-$k 60 $MPI $D/nbody $H
  step h128k-mpi2-t8-$k 60 $MPI -x NBODY_HERMITE_THREADS=8 $D/nbody $H
done
step h128k-mpi2-t4 60 $MPI -x NBODY_HERMITE_THREADS=4 $D/nbody $H
step h128k-mpi2-profile 60 $MPI $D/nbody $H --profile
step h128k-mpi2-t8-profile 60 $MPI -x NBODY_HERMITE_THREADS=8 $D/nbody $H --profile
step h128k-gpus2-profile 60 $D/nbody $H --gpus 2 --profile
SHOW="first frame|frames 2|hermite_report|not waiting|force engine"
step view-hermite-start 120 env NBODY_SIM_THREAD=1 $D/nbody view --headless --backend cuda --size 640x360 --frames 300 \
  --scene $PWD/scenes/star-cluster-kroupa.toml --bodies 131072
SHOW="PASSED|FAILED|OK \]"
step render-tests 400 $D/nbody_render_tests --gtest_color=no --gtest_filter='HermiteViewer.*:CudaGlInterop.*'
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
