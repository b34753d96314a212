// The Simulation panel: the scene and N, the integrator, dt and softening with their units, the
// playback speed, pause / step / reset, the conserved quantities, snapshots.
#include "nbody/sim/diagnostics.hpp"
#include "ui_panels.hpp"
#include "ui_widgets.hpp"

#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "cluster_plot.hpp"
#include "ui_hermite.hpp"

namespace nbody::app {

void draw_simulation_panel(SimulationParams& sim, Requests& requests, const PanelContext& ctx, bool* open,
                           float* height) {
    if (!ImGui::Begin("Simulation", open, kPanelFlags)) {
        report_extent(nullptr, height);
        ImGui::End();
        return;
    }
    // Scene picker. Files that do not parse are listed, disabled, with the reason.
    const SceneChoice* current = nullptr;
    for (const auto& s : ctx.scenes)
        if (s.path == ctx.scene_path) current = &s;
    ImGui::SetNextItemWidth(em() * 15.0f);
    const char* shown = current ? current->label.c_str() : ctx.scene.name.c_str();
    const bool list_open = ImGui::BeginCombo("Scene", shown);
    if (!list_open) tooltip(shown);  // the whole name, where the box cuts it ("Star cluster, Kroupa masses (4...")
    if (list_open) {
        for (const auto& s : ctx.scenes) {
            const bool selected = &s == current;
            ImGui::BeginDisabled(!s.error.empty());
            if (ImGui::Selectable(s.label.c_str(), selected) && !selected) requests.load_scene = s.path;
            ImGui::EndDisabled();
            if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled) &&
                (!s.error.empty() || !s.description.empty()))
                ImGui::SetTooltip("%s", (s.error.empty() ? s.description : s.error).c_str());
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    if (!ctx.scene.description.empty()) wrapped(kDim, ctx.scene.description);

    ImGui::SetNextItemWidth(em() * 8.0f);
    ImGui::InputInt("N", &sim.bodies, 1024, 16384);
    sim.bodies = std::clamp(sim.bodies, 2, 1 << 24);
    ImGui::SameLine();
    const bool n_changed = std::size_t(sim.bodies) != ctx.sim.size();
    ImGui::BeginDisabled(!n_changed);
    if (ImGui::Button("Apply N")) requests.apply_bodies = true;
    ImGui::EndDisabled();
    tooltip("Rebuilds the scene with this many bodies (the simulation restarts).");
    draw_integrator_choice(sim, requests);  // ui_hermite.cpp

    // Every physical quantity with its unit: internal units (G = 1), and the physical value where
    // the scene has one.
    const UnitSystem& units = ctx.scene.units;
    const bool physical = units.time_unit_myr > 0;
    ImGui::PushItemWidth(em() * 5.5f);
    float dt = float(sim.step.dt), eps = float(sim.step.softening);
    ImGui::BeginDisabled(sim.hermite);  // hermite4 chooses its own steps
    if (ImGui::DragFloat("dt", &dt, std::max(dt * 0.01f, 1e-6f), 1e-6f, 10.0f, "%.5f",
                         ImGuiSliderFlags_Logarithmic))
        sim.step.dt = dt;
    ImGui::EndDisabled();
    tooltip("Leapfrog's time step in internal units (G = 1). Applied from the next step.");
    ImGui::SameLine();
    if (physical)
        ImGui::TextColored(kDim, "x %s = %.3g Myr", units.time.c_str(), dt * units.time_unit_myr);
    else
        ImGui::TextColored(kDim, "N-body time units");
    if (ImGui::DragFloat("softening", &eps, std::max(eps * 0.01f, 1e-5f), 0.0f, 100.0f, "%.4f",
                         ImGuiSliderFlags_Logarithmic))
        sim.step.softening = eps;
    if (sim.hermite && ImGui::IsItemDeactivatedAfterEdit()) requests.apply_integrator = true;
    tooltip(
        "Plummer softening length epsilon. Changing it changes the potential energy, so the "
        "energy error restarts from a new reference.");
    ImGui::SameLine();
    ImGui::TextColored(kDim, "%s", physical ? units.length.c_str() : "N-body length units");
    ImGui::PopItemWidth();
    // Playback: a fixed number of steps per frame, or model time per second of wall clock (the
    // viewer then takes as many steps as the frame's duration asks for).
    ImGui::Checkbox("##rate_on", &sim.fixed_rate);
    tooltip("On: play at a fixed model time per second, whatever the frame rate. Off: a fixed number of "
            "steps per frame.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(em() * 12.5f);
    if (sim.fixed_rate) {
        const double unit = physical ? units.time_unit_myr : 1.0;
        float shown = float(sim.model_time_per_second * unit);
        if (ImGui::DragFloat("speed", &shown, std::max(shown * 0.01f, 1e-4f), 1e-4f, 1e6f,
                             physical ? "%.3g Myr / s" : "%.3g time units / s", ImGuiSliderFlags_Logarithmic))
            sim.model_time_per_second = std::max(double(shown) / unit, 1e-9);
    } else if (sim.hermite) {
        draw_time_per_frame(sim, ctx);
    } else {
        ImGui::SliderInt("steps/frame", &sim.steps_per_frame, 1, 64, "%d steps / frame",
                         ImGuiSliderFlags_Logarithmic);
    }

    if (ImGui::Button(sim.paused ? "Resume" : "Pause", ImVec2(em() * 5.0f, 0))) sim.paused = !sim.paused;
    ImGui::SameLine();
    if (ImGui::Button("Step")) {
        sim.paused = true;
        requests.single_step = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("Reset")) requests.reset = true;
    ImGui::SameLine();
    ImGui::TextColored(kDim, "%s", time_text(ctx.sim.time(), ctx.scene.units).c_str());

    // What a run is watched for comes right under the controls: the energy line and a star
    // cluster's radii stay in view at 1280x720; Hermite's block-step figures follow, folded there.
    ImGui::Separator();
    const EnergyMonitor& energy = ctx.energy;
    const bool small = ctx.sim.size() <= ctx.energy_auto_max_n;
    draw_energy_error(ctx, sim.auto_energy && small);
    draw_cluster_plot(ctx.sim.cluster_history());
    // Always two lines, so the panel does not jump when the first result arrives.
    if (energy.latest()) {
        const auto& d = *energy.latest();
        ImGui::TextColored(kDim, "E = %.6g (G = 1 units)   2T/|W| = %.3f", d.total, d.virial_ratio);
        tooltip("Total energy in the scene's internal units (G = 1: mass unit x velocity unit squared).");
        ImGui::TextColored(kDim, "|P| / sum m|v| = %.2e", energy.momentum_error());
    } else {
        ImGui::TextColored(kDim, "E = -   2T/|W| = -");
        ImGui::TextColored(kDim, "|P| / sum m|v| = -");
    }
    draw_hermite_section(sim, ctx);
    {
        // Snapshots keep positions, velocities, labels, time, dt and softening bit for bit.
        char file[512];
        std::snprintf(file, sizeof file, "%s", sim.snapshot_path.c_str());
        ImGui::PushItemWidth(ImGui::GetFontSize() * 12);
        if (ImGui::InputText("##snapshot", file, sizeof file)) sim.snapshot_path = file;
        ImGui::PopItemWidth();
        ImGui::SameLine();
        if (ImGui::Button("Save")) requests.save_snapshot = true;
        ImGui::SameLine();
        if (ImGui::Button("Load")) requests.load_snapshot = true;
        tooltip("Snapshot file (.nbsnap): saves the running simulation exactly, or restores one; "
                "a bad file is reported and the running simulation kept.");
        if (sim.confirm_replace) {  // as the Encounter editor's Save: never over a file unasked
            ImGui::TextColored(kWarn, "%s exists.", sim.snapshot_path.c_str());
            ImGui::SameLine();
            if (ImGui::Button("Replace")) requests.save_snapshot = requests.replace_snapshot = true;
            ImGui::SameLine();
            if (ImGui::Button("Keep it")) sim.confirm_replace = false;
        }
    }
    ImGui::BeginDisabled(energy.busy());
    if (ImGui::Button(energy.busy() ? "Computing..." : "Compute energy")) requests.compute_energy = true;
    ImGui::EndDisabled();
    // The sum the monitor makes (EnergyMonitor::start, choose_energy_source; Viewer::energy_on_gpu):
    // a tree run's potential comes from a tree walk, on the GPU for a cuda run, else on the host; a
    // direct run's from every pair.
    const bool tree_energy = ctx.sim.gravity().gravity == Gravity::Tree;
    const bool gpu_tree_energy = tree_energy && ctx.sim.cuda() != nullptr && ctx.sim.hermite() == nullptr;
    const bool gpu_direct_energy =
        !tree_energy && ctx.sim.cuda() != nullptr && ctx.sim.hermite() == nullptr && potential_on_gpu(ctx.sim.size());
    tooltip(gpu_tree_energy
                ? "The potential from the GPU tree's walk (the run's theta), O(N log N), summed in double on the "
                  "GPU between two steps (at most two steps' time); the energy error is the integrator's plus the "
                  "tree's. The kinetic energy comes from one copy of the state to the host."
            : tree_energy
                ? "The potential from a tree walk (the run's theta) on the host, O(N log N), in double, on a "
                  "worker thread: the energy error is the integrator's plus the tree's. On the CUDA paths "
                  "it copies the state from the device once (the Debug panel's byte count for that frame)."
            : gpu_direct_energy
                ? "O(N^2) in double on the GPU (the Hermite engine's fp64 kernel) from a copy of the state, on a "
                  "worker thread beside the steps; every 3 s, or 20 times the last sum's length where that is "
                  "longer, so that the sums take at most 5 % of the GPU."
                : "O(N^2) in double on the host, on a worker thread. On the CUDA paths it copies the "
                  "state from the device once (shown in the Debug panel's byte count for that frame).");
    ImGui::SameLine();
    ImGui::BeginDisabled(!small);
    char every[32];
    std::snprintf(every, sizeof every, "every %.0f s", energy.automatic_period());
    ImGui::Checkbox(every, &sim.auto_energy);
    ImGui::EndDisabled();
    const std::string why_not =
        "Only for N <= " + std::to_string(ctx.energy_auto_max_n) + " here: " +
        (gpu_tree_energy     ? std::string("the GPU tree's potential every 3 s would take more than 2 % of the GPU's time.")
         : gpu_direct_energy ? std::string("the GPU's sum over every pair in double grows as N^2: tens of seconds beyond.")
                             : std::string("the host sum (") + (tree_energy ? "a tree walk over all N" : "O(N^2)") +
                               ") would compete with the simulation and the window for the cores.");
    tooltip(small ? "Recompute the energy every few seconds." : why_not.c_str());

    report_extent(nullptr, height);
    ImGui::End();
}
}  // namespace nbody::app
