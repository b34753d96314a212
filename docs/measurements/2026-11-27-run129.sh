#!/usr/bin/env bash
# Device run 129 (nvidia-h100-x2): main at f10a92c.
# - The viewer: Hermite's block steps beside the frame loop (HermiteThread) and the auto-tune between two
#   steps: the interop, Hermite and beside tests (CudaGlInterop.AutotuneRunsBesideTheWindow new), and a
#   65,536-star hermite4 run on the cuda engine headless, in the frame loop and beside it.
# - The unsteady 4M tree runs under mpirun (runs 122-126): four of each, alternately, with the step-call
#   line (`time per step by step call`), then two with the ranks bound to a socket each.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|auto-tuned in|first frame drawn"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step render-tests 420 $D/nbody_render_tests --gtest_color=no --gtest_filter='CudaGlInterop.*:HermiteViewer.*:ViewerBeside.*'
SHOW="fps_report|hermite_report|own thread|engine"
for m in 0 1; do
  step hermite64k-view-$m 150 env NBODY_SIM_THREAD=$m $D/nbody view --headless --backend cuda --integrator hermite4 \
    --scene $PWD/scenes/plummer.toml --bodies 65536 --frames 300 --no-ui --size 640x360
done
SHOW="in [0-9.]+ s,|by step call"
MPI="mpirun --allow-run-as-root -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
RT="$D/nbody run --backend cuda --scene $D/scenes/plummer.toml --bodies 4194304 --gravity tree --steps 100"
for k in a b c d; do
  step tree4m-mpi-$k 60 $MPI --bind-to none $RT
  step tree4m-gpus-$k 60 $RT --gpus 2
done
for k in a b; do step tree4m-mpi-socket-$k 60 $MPI --bind-to socket --map-by socket $RT; done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
