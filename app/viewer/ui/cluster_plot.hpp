#pragma once
// The Simulation panel's star-cluster plot (issue 33): the Lagrangian radii (10, 50 and 90 % of the
// mass) and the core radius against model time, on a log scale, from the samples the simulation
// took (sim's ClusterHistory). Mass segregation and core collapse show as r10 and the core
// shrinking while r90 grows.

#include <imgui.h>

#include "nbody/sim/cluster_profile.hpp"

namespace nbody::app {

// Nothing unless `history` is active (a star cluster); then the plot's place is kept from the first
// frame, so the panel does not grow under the panels placed below it.
void draw_cluster_plot(const ClusterHistory& history);
// The plot's size at font size `em`; its background is kClusterPlotBackground (tests find it by it).
ImVec2 cluster_plot_size(float em);
inline constexpr unsigned char kClusterPlotBackground[3] = {20, 22, 30};

}  // namespace nbody::app
