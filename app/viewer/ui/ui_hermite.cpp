// The Simulation panel's integrator controls and hermite4's block-step figures: see ui_hermite.hpp.

#include "ui_hermite.hpp"
#include "ui_widgets.hpp"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace nbody::app {

namespace {

// The display height from which the block-step figures start unfolded (1080p, not 720p).
constexpr float kUnfoldedBlockStepsMinHeight = 1000.0f;

}  // namespace

void draw_integrator_choice(SimulationParams& sim, Requests& requests) {
    static const char* names[] = {"leapfrog (shared step dt)", "hermite4 (block steps, double)",
                                  "hermite6 (6th order, double)"};
    int which = !sim.hermite ? 0 : sim.hermite_order == 6 ? 2 : 1;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 15.0f);
    if (ImGui::Combo("Integrator", &which, names, 3)) {
        const int order = which == 2 ? 6 : 4;
        if (which > 0 && order != sim.hermite_order) sim.eta = hermite::default_eta(order);  // eta's scale is the order's
        sim.hermite = which > 0;
        sim.hermite_order = order;
        requests.apply_integrator = true;
    }
    tooltip(
        "leapfrog: one shared step dt, positions stepped on the GPU straight into the vertex buffer; for "
        "galaxies.\nhermite4: 4th-order Hermite predictor-corrector (Makino & Aarseth 1992) with individual "
        "block time steps in double precision; for star clusters, binaries and few-body orbits (softening 0 "
        "works).\nhermite6: 6th-order Hermite (Nitadori & Makino 2008), the same block steps, forces in double "
        "(cpu, or the GPU's fp64 kernel): orbits to 1e-8 and better in fewer steps.\nSwitching keeps the positions and velocities on screen.");
    if (!sim.hermite) return;
    ImGui::PushItemWidth(ImGui::GetFontSize() * 5.5f);
    float eta = float(sim.eta);
    const float eta_max = sim.hermite_order == 6 ? 0.5f : 0.2f;
    if (ImGui::DragFloat("eta", &eta, std::max(eta * 0.01f, 1e-5f), 1e-4f, eta_max, "%.4f", ImGuiSliderFlags_Logarithmic))
        sim.eta = std::max(double(eta), 1e-6);
    if (ImGui::IsItemDeactivatedAfterEdit()) requests.apply_integrator = true;
    tooltip(sim.hermite_order == 6
                   ? "The 6th-order step criterion's accuracy parameter (Nitadori & Makino 2008): each body's step "
                     "is eta times its own time scale; the error falls as eta^6. Default 0.1. Applied when you let go "
                     "(the block steps restart from the state on screen)."
                   : "Aarseth's accuracy parameter: each body's step is about sqrt(eta) of its own time scale; the "
                     "error falls as eta^2. Default 0.01. Applied when you let go (the block steps restart from the "
                     "state on screen).");
    ImGui::SameLine();
    int exponent = int(std::lround(std::log2(sim.dt_max)));
    char label[48];
    std::snprintf(label, sizeof label, "2^%d = %g", exponent, std::ldexp(1.0, exponent));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
    if (ImGui::SliderInt("dt_max", &exponent, -12, 2, label)) sim.dt_max = std::ldexp(1.0, exponent);
    if (ImGui::IsItemDeactivatedAfterEdit()) requests.apply_integrator = true;
    tooltip("The largest block step (a power of two); level k steps by dt_max 2^-k.");
    ImGui::PopItemWidth();
}

void draw_time_per_frame(SimulationParams& sim, const PanelContext& ctx) {
    const UnitSystem& units = ctx.scene.units;
    const bool physical = units.time_unit_myr > 0;
    const double unit = physical ? units.time_unit_myr : 1.0;
    float shown = float(sim.time_per_frame * unit);
    if (ImGui::DragFloat("time/frame", &shown, std::max(shown * 0.01f, 1e-6f), 1e-6f, 1e4f,
                         physical ? "%.4g Myr / frame" : "%.4g time units / frame", ImGuiSliderFlags_Logarithmic))
        sim.time_per_frame = std::max(double(shown) / unit, 1e-12);
    tooltip(
        "The Hermite integrator plays this much model time per frame: block steps up to that time, the bodies drawn "
        "predicted to it. In a window a frame gives the steps 30 ms at most; a denser phase then plays slower.");
}

void draw_hermite_section(const SimulationParams& sim, const PanelContext& ctx) {
    if (!sim.integrator_error.empty()) wrapped(kError, "Hermite stopped: " + sim.integrator_error);
    const ViewerHermite* h = ctx.sim.hermite();
    const HermiteSummary* sum = ctx.sim.hermite_summary();
    if (!h || !sum) return;
    // Folded where the display is short (1280x720): open, they would push the snapshot controls
    // below the fold; at 1080p there is room for them.
    ImGui::SetNextItemOpen(ImGui::GetIO().DisplaySize.y >= kUnfoldedBlockStepsMinHeight, ImGuiCond_Once);
    if (!ImGui::CollapsingHeader("Block steps")) return;
    const UnitSystem& units = ctx.scene.units;
    if (units.time_unit_myr > 0)
        ImGui::Text("t = %.6f (%.4g Myr)", sum->time, sum->time * units.time_unit_myr);
    else
        ImGui::Text("t = %.6f N-body time units", sum->time);
    tooltip("The model time on screen: the bodies are drawn predicted to it from their last block step.");
    wrapped(kDim, h->engine_line());

    // Bodies per block level, from the lowest occupied level to the highest.
    const std::vector<std::size_t>& hist = sum->levels;
    std::size_t lo = hist.size(), hi = 0, most = 0;
    for (std::size_t k = 0; k < hist.size(); ++k)
        if (hist[k] > 0) {
            lo = std::min(lo, k);
            hi = k;
            most = std::max(most, hist[k]);
        }
    if (lo <= hi) {
        std::vector<float> counts(hist.begin() + long(lo), hist.begin() + long(hi) + 1);
        char overlay[64];
        std::snprintf(overlay, sizeof overlay, "bodies on levels %zu..%zu", lo, hi);
        ImGui::PlotHistogram("##levels", counts.data(), int(counts.size()), 0, overlay, 0.0f, float(most) * 1.25f,
                             ImVec2(ImGui::GetFontSize() * 21.0f, ImGui::GetFontSize() * 4.0f));
        tooltip("Block levels: level k steps by dt_max 2^-k. Tight binaries and close encounters sit on the "
                   "high levels, the cluster's halo on the low ones.");
        std::string text;
        for (std::size_t k = lo; k <= hi; ++k)
            if (hist[k] > 0) {
                char item[48];
                std::snprintf(item, sizeof item, "L%zu: %zu   ", k, hist[k]);
                text += item;
            }
        char steps[96];
        std::snprintf(steps, sizeof steps, "(L%zu: dt %.3g, L%zu: dt %.3g)", lo, std::ldexp(sum->dt_max, -int(lo)), hi,
                      std::ldexp(sum->dt_max, -int(hi)));
        wrapped(kDim, text + steps);
    }

    const HermiteFrame& f = sum->frame;
    const hermite::HermiteStats& total = sum->total;
    ImGui::Text("This frame: %llu blocks, %llu force evaluations", (unsigned long long)f.blocks,
                (unsigned long long)f.evaluations);
    tooltip("A force evaluation is one active body's acceleration, jerk and potential from all N bodies.");
    const double per_block = f.blocks ? double(f.evaluations) / double(f.blocks) : 0.0;
    const double rate = f.seconds > 0 ? double(f.evaluations) * double(sum->bodies) / f.seconds : 0.0;
    char rates[128];  // wrapped, not clipped: it grows from one frame to the next
    std::snprintf(rates, sizeof rates, "%.1f active bodies per block, %.3g interactions/s%s", per_block, rate,
                  f.reached ? "" : " (frame budget reached)");
    wrapped(kDim, rates);
    ImGui::TextColored(kDim, "In all: %llu blocks, %llu force evaluations", (unsigned long long)total.blocks,
                       (unsigned long long)total.body_steps);
}

namespace {

// "summed 2.1 s ago", "summed 12 s ago": how old the value on show is, since the sum lags the
// state drawn by its period and its own time.
std::string summed_ago(double seconds) {
    char text[48];
    std::snprintf(text, sizeof text, seconds < 10 ? "summed %.1f s ago" : "summed %.0f s ago",
                  std::max(seconds, 0.0));
    return text;
}

std::string error_text(double e, const char* how) {
    char text[64];
    std::snprintf(text, sizeof text, "dE/|E0| = %+.3e%s", e, how);
    return text;
}

}  // namespace

EnergyLine energy_line(const SimulationDriver& sim, const EnergyMonitor& energy, const UnitSystem& units,
                       bool automatic) {
    EnergyLine line;
    std::optional<double> time, age, running;
    if (const ViewerHermite* h = sim.hermite()) {
        line.hermite = true;
        // Small N: summed with every summary of the run; larger: on a worker, from the start on.
        if (const HermiteSummary* sum = sim.hermite_summary(); sum && sum->energy_error)
            line.error = sum->energy_error, time = sum->time, age = 0.0;
        else if (const auto m = h->measured())
            line.error = m->error, time = m->time,
            age = std::chrono::duration<double>(std::chrono::steady_clock::now() - m->taken).count();
        running = h->measuring_seconds();
    } else {
        line.error = energy.energy_error();
        line.tree = energy.source() == EnergySource::Tree;
        if (line.error) time = energy.latest_time(), age = energy.latest_age_seconds();
        if (energy.running()) running = energy.seconds_since_start();
    }
    if (!line.error) {
        line.value = "dE/|E0| = (not computed yet)";
        if (running)
            line.when = "summing the first state on a worker thread";
        else if (!automatic)
            line.when = "summed on request here: Compute energy, below";
        return line;
    }
    line.value = error_text(*line.error, line.hermite ? " (double)" : line.tree ? " (tree)" : "");
    line.when = "at " + time_text(*time, units) + ", " + summed_ago(*age);
    return line;
}

void draw_energy_error(const PanelContext& ctx, bool automatic) {
    const EnergyLine line = energy_line(ctx.sim, ctx.energy, ctx.scene.units, automatic);
    // Always two lines, so the panel does not jump when the first value arrives.
    if (!line.error) {
        ImGui::TextColored(kDim, "%s", line.value.c_str());
        ImGui::TextColored(kDim, "%s", line.when.empty() ? " " : line.when.c_str());
        return;
    }
    const double e = std::abs(*line.error);
    ImGui::TextColored(e < 1e-3 ? kGood : e < 1e-2 ? kWarn : kError, "%s", line.value.c_str());
    if (line.hermite)
        tooltip(
            "Relative energy error since the Hermite run started (a snapshot keeps its E0), summed in double "
            "from the integrator's own state on the host.");
    else if (line.tree)
        tooltip(
            "The potential comes from the tree walk (the forces' criterion and cells), O(N log N):\n"
            "this error is the integrator's plus the tree's (docs/TREE.md).");
    else
        tooltip(("Relative energy error since " + time_text(ctx.energy.baseline_time(), ctx.scene.units) +
                 " (the run's first state: a snapshot keeps E0).")
                    .c_str());
    ImGui::TextColored(kDim, "%s", line.when.c_str());
    tooltip(
        "The model time of the state summed, and how long ago it was taken: the sum runs on a worker thread "
        "every few seconds (every frame for a Hermite run of 256 bodies or fewer).");
}

}  // namespace nbody::app
