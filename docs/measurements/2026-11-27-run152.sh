#!/usr/bin/env bash
# Device run 152 (nvidia-h100-x2): Hermite4 128K under mpirun -np 2 against --gpus 2 after the batch order went to the
# host threads (run 151), alternately, three times (run as one command line through the device tool).
source docs/measurements/device-runs/unpack-pk.sh >/dev/null 2>&1
MPI="mpirun --allow-run-as-root --bind-to none -np 2 -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
H="run --integrator hermite4 --scene $PWD/scenes/plummer.toml --t-end 0.25 --backend cuda --bodies 131072"
for k in a b c; do
  echo "gpus2-$k: $(timeout 60 $D/nbody $H --gpus 2 2>&1 | grep -o 'in [0-9.]* s: [0-9]* blocks')"
  echo "mpirun2-$k: $(timeout 90 $MPI $D/nbody $H 2>&1 | grep -o 'in [0-9.]* s: [0-9]* blocks')"
done 2>&1 | tee $OUT/run152.txt
