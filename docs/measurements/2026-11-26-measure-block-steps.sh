#!/usr/bin/env bash
# Block against shared time steps on the CPU tree (docs/TREE.md, "Block time steps"): one galaxy
# scene, one model time. Shared and block runs alternate, so that a change of load on a shared
# machine falls on both.
# Usage: docs/measurements/2026-11-26-measure-block-steps.sh BUILD_DIR BODIES T_END ENERGY ["run options" ...]
#   ENERGY exact: the pair sum, so that the tree's potential error does not hide the integrator's
#   (16K: 2 s a run); tree: O(N log N) (64K), its floor ~1e-6 (docs/TREE.md).
set -u
build=${1:-build-cpu}
bodies=${2:-16384}
t_end=${3:-8}
energy=${4:-exact}
shift 4 || true
if [ $# -eq 0 ]; then
    set -- "--dt 0.04" "--dt 0.16 --timesteps block --eta 0.2" "--dt 0.02" "--dt 0.16 --timesteps block --eta 0.1" \
           "--dt 0.01" "--dt 0.16 --timesteps block --eta 0.05" "--dt 0.005" "--dt 0.32 --timesteps block --eta 0.1"
fi
nbody="$build/app/nbody"
common="run --scene scenes/milky-way-andromeda.toml --bodies $bodies --gravity tree --backend cpu --energy $energy --t-end $t_end"
echo "# $(date -u) $(uname -n) nproc $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# git $(git rev-parse --short HEAD)"
for options in "$@"; do
    echo "## nbody $common $options"
    # shellcheck disable=SC2086
    /usr/bin/time -f "wall %e s" "$nbody" $common $options 2>&1 | grep -v "^  step"
    echo "# load: $(cut -d' ' -f1-3 /proc/loadavg)"
done
