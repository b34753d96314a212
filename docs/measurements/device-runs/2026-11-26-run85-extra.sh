# Sourced by 2026-11-26-run85.sh (same variables), with what time is left: issue 32's GPU energy
# target as a test at 16M bodies.
step tree-energy-16m-test 150 env NBODY_TREE_ENERGY_BODIES=16777216 $D/nbody_cuda_tests --gtest_color=no --gtest_filter=GpuTreePotential.TheEnergyOfATreeRunCostsAtMostTwoSteps
