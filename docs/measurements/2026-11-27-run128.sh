#!/usr/bin/env bash
# Device run 128 (nvidia-h100-x2): two changes built on e8e77e6 (branch verify128), checked before merging.
# - handpositions: the viewer's GPU energy and force-error tasks in the frame loop hand the vertex
#   buffer's positions to the backend on the GPU instead of a whole host snapshot first: the interop
#   and viewer tests that take those paths.
# - hermitetidy: one add_result_part for the host's sum over GPUs and the GPU's over ranks: the Hermite
#   tests, MpiRun.Hermite*, and the 128K --gpus 2 / mpirun -np 2 output against run 127's build
#   (build-pack/r127.tar.xz, e8e77e6) byte for byte.
source docs/measurements/device-runs/unpack-pk.sh
SHOW="^\[  (PASSED|FAILED|SKIPPED) +\]|Failure|energy line|force error"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
step render-tests 200 $D/nbody_render_tests --gtest_color=no --gtest_filter='CudaGlInterop.*:ViewerExecutable.TreeGravity*'
step cuda-tests 240 $D/nbody_cuda_tests --gtest_color=no --gtest_filter='HermiteCuda*:HermiteTwoGpus.*:TwoGpus.*'
step cli-mpi 200 $D/nbody_cli_tests --gtest_color=no --gtest_filter='MpiRun.Hermite*'
mkdir -p .pk/before && tar -xJf build-pack/r127.tar.xz -C .pk/before
SHOW="in [0-9.]+ s:|energy error"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda"
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
step h128k-gpus2 40 $D/nbody $H --bodies 131072 --gpus 2 --out $L/g2.csv
step h128k-gpus2-before 40 .pk/before/bin/nbody $H --bodies 131072 --gpus 2 --out $L/g2-before.csv
step h128k-mpi2 60 $MPI $D/nbody $H --bodies 131072 --out $L/m2.csv
cmp $L/g2.csv $L/g2-before.csv && echo "128K --gpus 2: output identical to run 127's build"
cmp $L/g2.csv $L/m2.csv && echo "128K: mpirun -np 2 output identical to --gpus 2"
rm -f $L/*.csv
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $L
echo "end at $((SECONDS-t0)) s"
