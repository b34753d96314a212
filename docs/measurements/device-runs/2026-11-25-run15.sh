#!/usr/bin/env bash
# Device run 15: bench --precision without --block (the block now fits the instance), its GPU test.
set -u
rm -rf .dev-17; tar -xzf .dev-pack/dev17.tar.gz
D=$PWD/.dev-17/bin
export LD_LIBRARY_PATH=$PWD/.dev-17/lib:$D NBODY_EXECUTABLE=$D/nbody NBODY_SOURCE_DIR=$PWD
$D/nbody_cuda_tests --gtest_color=no --gtest_filter='BenchJson.*' 2>&1 | grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) "
for p in ds fp32-jbag; do $D/nbody bench --backend cuda --bodies 64K --precision $p 2>&1 | grep -E "^ +[0-9]+ "; done
