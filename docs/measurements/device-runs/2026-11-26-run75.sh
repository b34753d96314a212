#!/usr/bin/env bash
# Device run 75 (issue 17): after the block's work start became one helper (balanced_split.cuh,
# block_work) for the force and precision kernels and the lab: the rates of run 74 again, the
# precision kernels, nbody_cuda_tests, and the SASS of the two every-pair instances for comparison.
source docs/measurements/device-runs/unpack.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
b() { local name=$1; shift; timeout 150 $D/nbody bench --backend cuda "$@" > $OUT/logs/$name.log 2>&1; echo "--- $name: exit $? (t = $((SECONDS-t0)) s)"; grep -E "^ +[0-9]+ |check|error" $OUT/logs/$name.log | head -8; }
b default-full --bodies 256K,1M --pairs full
b flags5 --bodies 256K,1M --pairs full --unroll 32 --block 1024 --threads-per-body 2 --bodies-per-thread 4 --kernel-flags 5 --split balanced
b scene-full --scene scenes/milky-way-andromeda.toml --bodies 256K --pairs full
b precision --bodies 64K --pairs full --precision fp32-jbag,ds,fp64 --check
timeout 400 $D/nbody_cuda_tests > $OUT/logs/cuda-tests.log 2>&1; echo "cuda tests exit $? (t = $((SECONDS-t0)) s)"; grep -E "PASSED|FAILED" $OUT/logs/cuda-tests.log | head
for f in force_kernelILi8ELi1ELi4ELi7E force_kernelILi32ELi2ELi4ELi5E; do
  cuobjdump -sass -fun "$(cuobjdump -sass $D/nbody 2>/dev/null | grep -o "_ZN[A-Za-z0-9_]*${f}[A-Za-z0-9_]*" | head -1)" $D/nbody > $OUT/logs/sass-$f.sass 2>&1
done
tar czf $OUT/logs.tgz -C $OUT logs; rm -rf $OUT/logs
echo "end at $((SECONDS-t0)) s"
