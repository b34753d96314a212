#!/usr/bin/env bash
# Block against shared time steps on the CPU tree (docs/TREE.md, "Block time steps"): one galaxy
# scene, one model time, energy from the exact pair sum so that the tree's potential error does not
# hide the integrator's. Shared and block runs alternate, so that a change of load on a shared
# machine falls on both. Usage: scripts/measure-block-steps.sh [build dir] [bodies] [t_end]
set -u
build=${1:-build-cpu}
bodies=${2:-16384}
t_end=${3:-8}
nbody="$build/app/nbody"
scene=scenes/milky-way-andromeda.toml
common="run --scene $scene --bodies $bodies --gravity tree --backend cpu --energy exact --t-end $t_end"
echo "# $(date -u) $(uname -n) nproc $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# git $(git rev-parse --short HEAD)"
one() {
    echo "## nbody $common $*"
    /usr/bin/time -f "wall %e s" "$nbody" $common "$@" 2>&1 | grep -v "^  step"
    echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"
}
one --dt 0.04
one --dt 0.16 --timesteps block --eta 0.2
one --dt 0.02
one --dt 0.16 --timesteps block --eta 0.1
one --dt 0.01
one --dt 0.16 --timesteps block --eta 0.05
one --dt 0.005
one --dt 0.32 --timesteps block --eta 0.1
