#include "ui_panels.hpp"
#include "ui_selection.hpp"
#include "ui_widgets.hpp"

#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "ui_hermite.hpp"
#include "viewer_gravity.hpp"
#include "viewer_input.hpp"

#if NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {

// Shared with the other panels through ui_widgets.hpp.

const ImVec4 kWarn(1.00f, 0.78f, 0.30f, 1.0f);
const ImVec4 kError(1.00f, 0.42f, 0.38f, 1.0f);
const ImVec4 kGood(0.45f, 0.90f, 0.55f, 1.0f);
const ImVec4 kDim(0.62f, 0.66f, 0.74f, 1.0f);

// Shows `text` while the last item is hovered.
void tooltip(const char* text) {
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
        ImGui::TextUnformatted(text);
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

// A "(?)" beside the last item that shows `text` when hovered.
void help_marker(const char* text) {
    ImGui::SameLine();
    ImGui::TextDisabled("(?)");
    tooltip(text);
}

// A combo over `values`; returns true when the choice changed.
bool int_combo(const char* label, int* value, const std::vector<int>& values) {
    bool changed = false;
    char preview[32];
    std::snprintf(preview, sizeof preview, "%d", *value);
    if (ImGui::BeginCombo(label, preview)) {
        for (const int v : values) {
            char item[32];
            std::snprintf(item, sizeof item, "%d", v);
            const bool selected = v == *value;
            if (ImGui::Selectable(item, selected)) {
                changed = v != *value;
                *value = v;
            }
            if (selected) ImGui::SetItemDefaultFocus();
        }
        ImGui::EndCombo();
    }
    return changed;
}

std::string config_label(const KernelConfig& c) {
    char buf[64];
    if (c.pair_mode == PairMode::Full)
        std::snprintf(buf, sizeof buf, "U%d p%d q%d B%d%s%s", c.unroll, c.block, c.threads_per_body,
                      c.bodies_per_thread, c.precision == Precision::Fp32 ? "" : " ",
                      c.precision == Precision::Fp32 ? "" : std::string(to_string(c.precision)).c_str());
    else
        std::snprintf(buf, sizeof buf, "%s L%d", c.pair_mode == PairMode::Symmetric ? "sym" : "sym-bb",
                      c.bodies_per_lane);
    return buf;
}

float em() { return ImGui::GetFontSize(); }

// The current window's lower edge and height, for placing the next panel.
void report_extent(float* bottom, float* height) {
    if (bottom) *bottom = ImGui::GetWindowPos().y + ImGui::GetWindowSize().y;
    if (height) *height = ImGui::GetWindowSize().y;
}

// Panels size themselves to their content (nothing is ever cut off behind a scroll bar); draw_ui
// places them for the first frames and after View > Reset layout, then they go where they are dragged.
constexpr ImGuiWindowFlags kPanelFlags = ImGuiWindowFlags_AlwaysAutoResize;
// Status windows drawn over the scene (the status bar, the backend badge): fixed, not
// interactive, sized to their text.
constexpr ImGuiWindowFlags kOverlayFlags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                           ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                           ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoInputs;

// Wrapped text in an auto-sized window must wrap at a fixed width, or the window and the text
// would each wait for the other to decide.
void wrapped(const ImVec4& colour, const std::string& text, float width_em = 21.0f) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + em() * width_em);
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
}


// A combo over the names of an enum whose values are 0 .. K-1.
template <typename Enum, std::size_t K>
bool enum_combo(const char* label, Enum& value, const char* const (&names)[K]) {
    int index = int(value);
    ImGui::SetNextItemWidth(em() * 13.0f);
    if (!ImGui::Combo(label, &index, names, int(K))) return false;
    value = Enum(index);
    return true;
}

std::string time_text(double t, const UnitSystem& units) {
    char buf[64];
    const double myr = t * units.time_unit_myr;
    if (!(units.time_unit_myr > 0))
        std::snprintf(buf, sizeof buf, "t = %.2f (N-body units)", t);
    else if (std::abs(myr) >= 1000.0)
        std::snprintf(buf, sizeof buf, "t = %.3f Gyr", myr * 1e-3);
    else
        std::snprintf(buf, sizeof buf, "t = %.1f Myr", myr);
    return buf;
}

std::string si(double value) {
    static const char* prefixes[] = {"", " k", " M", " G", " T", " P", " E"};
    int k = 0;
    double v = std::abs(value);
    while (v >= 1000.0 && k < 6) {
        v /= 1000.0;
        ++k;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf,
                  v >= 100  ? "%.0f%s"
                  : v >= 10 ? "%.1f%s"
                            : "%.2f%s",
                  value < 0 ? -v : v, prefixes[k]);
    return buf;
}

std::string fps_text(double fps) {
    char buf[32];
    std::snprintf(buf, sizeof buf, fps < 10 ? "%.1f fps" : "%.0f fps", fps);
    return buf;
}

std::string bytes_text(double bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (bytes >= 1024.0 && k < 4) {
        bytes /= 1024.0;
        ++k;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, k == 0 ? "%.0f %s" : "%.1f %s", bytes, units[k]);
    return buf;
}

// The gravity solver: the all-pairs kernel or the tree code (docs/TREE.md), switched live.
void draw_gravity_section(KernelParams& kernel, Requests& requests, const PanelContext& ctx) {
    static const char* solvers[] = {"direct (every pair)", "tree (Barnes-Hut)"};
    bool changed = enum_combo("Gravity", kernel.gravity.gravity, solvers);
    tooltip(
        "direct: the all-pairs kernel, exact up to rounding. tree: monopole + quadrupole cells opened "
        "by theta; far faster at large N, with a force error theta controls. Positions and "
        "velocities are kept when you switch.");
    if (kernel.gravity.gravity == Gravity::Tree) {
        TreeParams& t = kernel.gravity.tree;
        float theta = float(t.theta);
        ImGui::SetNextItemWidth(em() * 13.0f);
        if (ImGui::SliderFloat("theta", &theta, 0.1f, 1.2f, "%.2f")) {
            t.theta = double(theta);
            changed = true;
        }
        tooltip("Opening angle: a cell is used whole when it looks smaller than theta from a group. Smaller is "
                "more accurate and slower.");
        ImGui::PushItemWidth(em() * 6.0f);
        const int max_group = ctx.sim.tunable() ? 128 : kMaxGroupSize;  // the GPU walk's limit
        changed |= ImGui::SliderInt("group", &t.group_size, 1, max_group);
        tooltip("Bodies that share one tree walk and one interaction list.");
        ImGui::SameLine();
        const int max_leaf = ctx.sim.tunable() ? 64 : kMaxLeafSize;
        changed |= ImGui::SliderInt("leaf", &t.leaf_size, 1, max_leaf);
        tooltip("A cell with at most this many bodies is not split further.");
        ImGui::PopItemWidth();
        if (const std::string times = tree_timing_text(ctx.sim); !times.empty()) wrapped(kDim, "Tree: " + times);
    }
    if (changed) requests.apply_gravity = true;
    if (!kernel.gravity_reason.empty()) wrapped(kError, "Not applied: " + kernel.gravity_reason);
    if (ImGui::Button("Force error")) requests.estimate_force_error = true;
    tooltip("Compares the running solver's accelerations with a double-precision direct sum on 256 random "
            "bodies (one extra force pass; a fraction of a second at 1M bodies).");
    ImGui::SameLine();
    wrapped(kDim, kernel.force_error.empty() ? std::string("(not measured yet)") : kernel.force_error);
}

void draw_kernel_panel(KernelParams& kernel, Requests& requests, const PanelContext& ctx, bool* open,
                       float* bottom) {
    if (!ImGui::Begin("Kernel", open, kPanelFlags)) {
        report_extent(bottom, nullptr);
        ImGui::End();
        return;
    }
    const PerfStats& perf = ctx.perf;
    const double ips = perf.interactions_per_second();
    const double gflops = ips * kernel.flops_per_interaction * 1e-9;

    if (ctx.sim.tunable()) {
        const KernelConfig running = ctx.sim.backend().kernel_config();
        std::vector<int> unrolls{1, 2, 4, 8, 16, 32}, tpbs{1, 2, 4, 8, 16, 32}, bpts{1, 2, 4}, blocks;
#if NBODY_HAVE_CUDA
        unrolls = CudaBackend::supported_unroll();
        tpbs = CudaBackend::supported_threads_per_body();
        bpts = CudaBackend::supported_bodies_per_thread();
        for (int b = CudaBackend::block_granularity; b <= CudaBackend::max_block;
             b += CudaBackend::block_granularity)
            blocks.push_back(b);
#else
        for (int b = 32; b <= 1024; b += 32) blocks.push_back(b);
#endif
        static const char* pair_modes[] = {"full: every pair", "symmetric: each pair once",
                                           "symmetric, bounding-box grid"};
        bool changed = enum_combo("Pairs", kernel.edited.pair_mode, pair_modes);
        tooltip(
            "full: every ordered pair, N^2 evaluations, bit-reproducible.\n"
            "symmetric: each unordered pair once with f_ji = -f_ij (half the work, float atomics: "
            "not bit-reproducible). Rates below always count N^2 interactions per step, so the "
            "symmetric modes show the rate the full kernel would need to match them.");
        if (!kernel.origin.empty() && kernel.edited == kernel.started_with) {
            // Why this config: the default table (and, for each pair once, that it is the same physics).
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.65f, 0.8f, 0.65f, 1.0f));
            ImGui::TextWrapped("%s", kernel.origin.c_str());
            ImGui::PopStyleColor();
        }
        if (kernel.edited.pair_mode == PairMode::Full) {
            static const char* precisions[] = {"fp32", "fp32 + J-bag Kahan", "double-single", "fp64"};
            changed |= enum_combo("Precision", kernel.edited.precision, precisions);
            tooltip(
                "fp32: the plain direct sum. J-bag: per-tile partial sums added with Kahan "
                "compensation (Hamada & Iitaka 2007). double-single: Sapporo's split positions "
                "(Gaburov et al. 2009). fp64: doubles throughout. See docs/PRECISION.md.");
        }
        ImGui::PushItemWidth(em() * 4.5f);
        if (kernel.edited.pair_mode == PairMode::Full) {
            changed |= int_combo("Unroll U", &kernel.edited.unroll, unrolls);
            tooltip("j-loop unroll factor of the inner interaction loop (a compile-time instance each).");
            ImGui::SameLine(em() * 13.0f);
            changed |= int_combo("Block p", &kernel.edited.block, blocks);
            tooltip("Threads per block = bodies per shared-memory tile.");
            changed |= int_combo("Threads/body q", &kernel.edited.threads_per_body, tpbs);
            tooltip("Threads that split one body's j-range (helps small N fill the GPU).");
            ImGui::SameLine(em() * 13.0f);
            changed |= int_combo("Bodies/thread B", &kernel.edited.bodies_per_thread, bpts);
            tooltip(
                "i-bodies each thread holds in registers: every j read from shared memory serves B "
                "interactions.");
        } else {
            changed |= int_combo("Bodies/lane", &kernel.edited.bodies_per_lane, {1, 2, 4, 8});
            tooltip("i-bodies per lane; a tile is 32 x bodies/lane bodies a side, one warp per tile.");
        }
        ImGui::PopItemWidth();
        if (changed) requests.apply_kernel = true;

        if (!kernel.invalid_reason.empty()) {
            wrapped(kError, "Not applied: " + kernel.invalid_reason);
        } else {
            ImGui::TextColored(kGood, "Running %s", config_label(running).c_str());
        }
        if (ImGui::Button("Auto-tune")) requests.autotune = true;
        tooltip(
            "Times the kernel configurations (pair modes included) at this N, applies the fastest and "
            "caches it for this GPU and N, so the next start uses it. The simulation does not advance; "
            "the window pauses for a few seconds.");
        if (!kernel.autotune_result.empty()) {
            ImGui::SameLine();
            wrapped(kernel.autotune_ok ? kDim : kError, kernel.autotune_result);
        }
#if NBODY_HAVE_CUDA
        if (const CudaBackend* cuda = ctx.sim.cuda(); cuda && kernel.invalid_reason.empty()) {
            try {
                const auto r = cuda->kernel_resources(running);
                ImGui::TextColored(kDim, "%d registers/thread, %zu B spilled, %s shared/block",
                                   r.registers_per_thread, r.local_bytes_per_thread,
                                   bytes_text(double(r.shared_bytes_per_block)).c_str());
            } catch (const std::exception&) {
            }
        }
#endif
    } else {
        wrapped(kDim, "The " + std::string(ctx.sim.backend().name()) +
                          " backend has no tunable kernel (start with --backend cuda on a GPU).");
    }
    ImGui::Separator();
    draw_gravity_section(kernel, requests, ctx);

    ImGui::Separator();
    if (ImGui::BeginTable("rates", 2, ImGuiTableFlags_SizingStretchProp)) {
        auto row = [](const char* name, const std::string& value) {
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            ImGui::TextColored(kDim, "%s", name);
            ImGui::TableSetColumnIndex(1);
            ImGui::TextUnformatted(value.c_str());
        };
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f ms%s", perf.ms_per_step(),
                      ctx.sim.tunable() ? " (force pass, GPU events)" : "");
        row("Step", perf.ms_per_step() > 0 ? buf : "-");
        row("Interactions/s", ips > 0 ? si(ips) : "-");
        row("GFLOP/s", ips > 0 ? si(gflops * 1e9).append("FLOP/s") : "-");
        std::snprintf(buf, sizeof buf, "%.1f  (%.2f ms/frame)", perf.fps(), perf.frame_ms());
        row("Frames/s", buf);
        ImGui::EndTable();
    }
    ImGui::TextColored(kDim, "FLOPs per interaction:");
    ImGui::SameLine();
    ImGui::RadioButton("20", &kernel.flops_per_interaction, 20);
    ImGui::SameLine();
    ImGui::RadioButton("38", &kernel.flops_per_interaction, 38);
    help_marker(
        "20: the count of GPU Gems 3 and NVIDIA's nbody sample (rsqrt counted as 4). 38: the "
        "astrophysics convention (Warren et al., Hamada et al.), for comparing with papers that use it.");

    const float plot_w = ImGui::GetContentRegionAvail().x;
    const RollingSeries& ips_h = perf.ips_history();
    if (ips_h.count() > 0) {
        char overlay[64];
        std::snprintf(overlay, sizeof overlay, "%s interactions/s", si(ips).c_str());
        ImGui::PlotLines("##ips", ips_h.data(), ips_h.size(), ips_h.offset(), overlay, 0.0f,
                         ips_h.max() * 1.15f, ImVec2(plot_w, em() * 3.2f));
    }
    const RollingSeries& fps_h = perf.fps_history();
    if (fps_h.count() > 0) {
        char overlay[64];
        std::snprintf(overlay, sizeof overlay, "%s", fps_text(perf.fps()).c_str());
        ImGui::PlotLines("##fps", fps_h.data(), fps_h.size(), fps_h.offset(), overlay, 0.0f,
                         fps_h.max() * 1.15f, ImVec2(plot_w, em() * 2.6f));
    }

    if (ctx.sim.tunable() && !perf.configs().empty() &&
        ImGui::CollapsingHeader("Configurations tried", ImGuiTreeNodeFlags_DefaultOpen)) {
        const KernelConfig running = ctx.sim.backend().kernel_config();
        const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                      ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_Sortable;
        if (ImGui::BeginTable("configs", 4, flags)) {
            ImGui::TableSetupColumn("config");
            ImGui::TableSetupColumn(
                "int/s", ImGuiTableColumnFlags_DefaultSort | ImGuiTableColumnFlags_PreferSortDescending);
            ImGui::TableSetupColumn("GFLOP/s");
            ImGui::TableSetupColumn("ms/step");
            ImGui::TableHeadersRow();
            std::vector<const ConfigRate*> rows;
            for (const auto& r : perf.configs()) rows.push_back(&r);
            std::sort(rows.begin(), rows.end(), [](const ConfigRate* a, const ConfigRate* b) {
                return a->interactions_per_second > b->interactions_per_second;
            });
            for (const ConfigRate* r : rows) {
                ImGui::TableNextRow();
                const bool current = r->config == running;
                ImGui::TableSetColumnIndex(0);
                if (current)
                    ImGui::TextColored(kGood, "%s", config_label(r->config).c_str());
                else
                    ImGui::TextUnformatted(config_label(r->config).c_str());
                ImGui::TableSetColumnIndex(1);
                ImGui::TextUnformatted(si(r->interactions_per_second).c_str());
                ImGui::TableSetColumnIndex(2);
                ImGui::Text("%.0f", r->interactions_per_second * kernel.flops_per_interaction * 1e-9);
                ImGui::TableSetColumnIndex(3);
                ImGui::Text("%.3f", r->ms_per_step);
            }
            ImGui::EndTable();
        }
    }
    report_extent(bottom, nullptr);
    ImGui::End();
}

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
    if (ImGui::BeginCombo("Scene", current ? current->label.c_str() : ctx.scene.name.c_str())) {
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
    draw_hermite_section(sim, ctx);

    ImGui::Separator();
    const EnergyMonitor& energy = ctx.energy;
    const bool small = ctx.sim.size() <= 65536;
    if (const auto err = energy.energy_error()) {
        const double e = *err;
        ImGui::TextColored(std::abs(e) < 1e-3   ? kGood
                           : std::abs(e) < 1e-2 ? kWarn
                                                : kError,
                           "dE/|E0| = %+.3e", e);
        ImGui::SameLine();
        ImGui::TextColored(kDim, "at t = %.3f", energy.latest_time());
    } else {
        ImGui::TextColored(kDim, "dE/|E0| = (not computed yet)");
    }
    // Always three lines, so the panel does not jump when the first result arrives.
    if (energy.latest()) {
        const auto& d = *energy.latest();
        ImGui::TextColored(kDim, "E = %.6g   2T/|W| = %.3f", d.total, d.virial_ratio);
        ImGui::TextColored(kDim, "|P| / sum m|v| = %.2e", energy.momentum_error());
    } else {
        ImGui::TextColored(kDim, "E = -   2T/|W| = -");
        ImGui::TextColored(kDim, "|P| / sum m|v| = -");
    }
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
    }
    ImGui::BeginDisabled(energy.busy());
    if (ImGui::Button(energy.busy() ? "Computing..." : "Compute energy")) requests.compute_energy = true;
    ImGui::EndDisabled();
    tooltip(
        "O(N^2) in double on the host, on a worker thread. On the CUDA paths it copies the "
        "state from the device once (shown in the Debug panel's byte count for that frame).");
    ImGui::SameLine();
    ImGui::BeginDisabled(!small);
    ImGui::Checkbox("every 3 s", &sim.auto_energy);
    ImGui::EndDisabled();
    tooltip(small ? "Recompute the energy every few seconds."
                  : "Only for N <= 65536: the host sum is O(N^2).");

    report_extent(nullptr, height);
    ImGui::End();
}

void draw_rendering_panel(render::RenderSettings& r, CameraParams& camera, Requests& requests,
                          const PanelContext& ctx, bool* open, float* bottom) {
    if (!ImGui::Begin("Rendering", open, kPanelFlags)) {
        report_extent(bottom, nullptr);
        ImGui::End();
        return;
    }
    ImGui::PushItemWidth(em() * 10.0f);
    static const char* modes[] = {"Galaxy", "Component", "Speed", "Plain"};
    int mode = int(r.colour_mode);
    if (ImGui::Combo("Colour by", &mode, modes, 4)) r.colour_mode = render::ColourMode(mode);
    tooltip(
        "Galaxy: each galaxy its own hue, bulges whiter. Component: disk / bulge / halo / stars.\n"
        "Speed: through a colour map. The speed is each particle's displacement between the two "
        "ping-pong position buffers divided by the time between them (the leapfrog drift velocity), "
        "so it needs no velocity copy: it works on every path, CUDA-GL interop included, and costs "
        "no host transfer.");
    if (r.colour_mode == render::ColourMode::Speed) {
        int map = int(r.colour_map);
        const char* names[render::kColorMapNames.size()];
        for (std::size_t i = 0; i < render::kColorMapNames.size(); ++i)
            names[i] = render::kColorMapNames[i].data();
        if (ImGui::Combo("Colour map", &map, names, int(render::kColorMapNames.size())))
            r.colour_map = render::ColorMap(map);
        float scale = r.speed_scale > 0 ? r.speed_scale : ctx.auto_speed_scale;
        if (ImGui::DragFloat("Top speed", &scale, scale * 0.01f, 1e-4f, 1e4f, "%.3g",
                             ImGuiSliderFlags_Logarithmic))
            r.speed_scale = scale;
        ImGui::SameLine();
        if (ImGui::SmallButton("auto")) r.speed_scale = 0;
        tooltip("Automatic: the 95th percentile of the initial speeds.");
    }
    if (r.colour_mode != render::ColourMode::Speed) {
        ImGui::SliderFloat("Star variety", &r.variety, 0.0f, 1.0f, "%.2f");
        tooltip(
            "Each particle gets a fixed brightness and a slight red or blue shift, so a galaxy "
            "reads as a population of stars rather than a flat tint. 0: all alike.");
    }
    bool show_halo = !r.hide_halo;
    if (ImGui::Checkbox("Dark matter", &show_halo)) r.hide_halo = !show_halo;
    tooltip("Draw the dark-matter halo particles as a faint haze (hidden by default: they would hide the disks).");
    if (!r.hide_halo) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(em() * 5.0f);
        ImGui::SliderFloat("##halo", &r.halo_brightness, 0.0f, 1.0f, "halo %.2f");
    }
    draw_trail_controls(r.trails, ctx.sim.size());  // ui_selection.cpp
    ImGui::Separator();
    ImGui::SliderFloat("Point size", &r.point_size, 0.5f, 24.0f, "%.1f px", ImGuiSliderFlags_Logarithmic);
    ImGui::Checkbox("Size with distance", &r.size_with_distance);
    tooltip("Nearer particles are drawn larger: a depth cue when orbiting.");
    ImGui::SliderFloat("Exposure", &r.exposure, 0.02f, 50.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
    ImGui::Checkbox("Constant brightness when zooming", &r.constant_brightness_zoom);
    ImGui::SliderFloat("Glow", &r.glow, 0.0f, 3.0f, "%.2f");
    ImGui::Checkbox("32-bit float target", &r.float32_target);
    tooltip("Accumulate light in RGBA32F instead of RGBA16F: only matters for extreme exposures.");
    ImGui::PopItemWidth();

    ImGui::Separator();
    ImGui::Checkbox("Follow centre of mass", &camera.follow_centre_of_mass);
    tooltip(
        "Keeps the centre of mass at the screen centre. It moves uniformly (momentum is "
        "conserved), so it is extrapolated from the initial state: no copy from the GPU.");
    ImGui::SameLine();
    if (ImGui::SmallButton("Reset camera")) requests.reset_camera = true;
    // Presets: the orbit plane is the scene's x-y plane (scene files put encounters there); the
    // disk views use the chosen galaxy's disk spin, measured from the particles.
    if (ImGui::SmallButton("Orbit plane")) requests.camera_preset = CameraPreset::OrbitalPlane;
    tooltip("Look down onto the plane of the galaxies' orbit.");
    ImGui::SameLine();
    if (ImGui::SmallButton("Edge-on")) requests.camera_preset = CameraPreset::EdgeOn;
    tooltip("Look along the orbit plane.");
    const int galaxies = std::max(ctx.galaxies, 1);
    camera.preset_galaxy = std::clamp(camera.preset_galaxy, 0, galaxies - 1);
    if (ImGui::SmallButton("Disk face-on")) requests.camera_preset = CameraPreset::FaceOnDisk;
    ImGui::SameLine();
    if (ImGui::SmallButton("Disk edge-on")) requests.camera_preset = CameraPreset::EdgeOnDisk;
    if (galaxies > 1) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(em() * 4.5f);
        int shown = camera.preset_galaxy + 1;
        if (ImGui::InputInt("##pg", &shown, 1, 1)) camera.preset_galaxy = std::clamp(shown - 1, 0, galaxies - 1);
        tooltip("The galaxy (1, 2, ...) whose disk the two disk views look at.");
        ImGui::SetNextItemWidth(em() * 10.0f);
        int follow = camera.follow_galaxy + 1;
        std::string names = "nothing";
        names.push_back('\0');
        for (int k = 0; k < galaxies; ++k) {
            names += "galaxy " + std::to_string(k + 1);
            names.push_back('\0');
        }
        if (ImGui::Combo("Follow", &follow, names.c_str())) camera.follow_galaxy = follow - 1;
        tooltip("Keep this galaxy's centre of mass at the screen centre (its position is read from the "
                "simulation a few times a second).");
    }
    if (ImGui::Button("Screenshot (F)")) requests.screenshot = true;
    ImGui::SameLine();
    if (ImGui::Button("Reload shaders")) requests.reload_shaders = true;
    tooltip("Re-reads shaders/*.vert|frag from disk; a compile error is shown and the old ones kept.");
    report_extent(bottom, nullptr);
    ImGui::End();
}

void draw_debug_panel(const PanelContext& ctx, bool* open) {
    if (!ImGui::Begin("Debug", open, kPanelFlags)) {
        ImGui::End();
        return;
    }
    wrapped(kDim, "GL: " + ctx.gl.renderer);
    wrapped(kDim, ctx.gl.version + ", GLSL " + ctx.gl.glsl_version);
    wrapped(kDim, "Context: " + ctx.context_description);
    ImGui::Separator();
    ImGui::Text("Backend: %.*s", int(ctx.sim.backend().name().size()), ctx.sim.backend().name().data());
#if NBODY_HAVE_CUDA
    if (const CudaBackend* cuda = ctx.sim.cuda()) {
        ImGui::SameLine();
        ImGui::TextColored(kDim, "(%s, %d SMs)", cuda->device_info().name.c_str(),
                           cuda->device_info().sm_count);
    }
#endif
    ImGui::Text("Positions: %s", describe(ctx.sim.path()));
    const std::size_t d2h = ctx.perf.bytes_to_host_last_frame();
    ImGui::TextColored(d2h == 0 ? kGood : kWarn, "Device-to-host this frame: %s",
                       bytes_text(double(d2h)).c_str());
    tooltip("CudaBackend::bytes_copied_to_host() difference over the frame's steps: 0 on the interop path.");
    ImGui::Text("Uploaded to GL this frame: %s",
                bytes_text(double(ctx.perf.bytes_uploaded_last_frame())).c_str());
    ImGui::Text("Vertex buffers: 2 x %s + labels %s",
                bytes_text(double(ctx.sim.buffers().position_bytes())).c_str(),
                bytes_text(double(ctx.sim.size() * 4)).c_str());
    if (!ctx.messages.empty()) {
        ImGui::Separator();
        for (const auto& m : ctx.messages) wrapped(kWarn, m);
    }
    ImGui::End();
}

// What saved frames show besides the particles; applies at once, also while recording.
void draw_saved_frame_options(RecordingParams& rec) {
    ImGui::Checkbox("Legend, scale bar, time", &rec.annotate);
    tooltip("Recorded frames and screenshots carry the colour legend, the scale bar and the model time "
            "(bottom left), without the panels (`--annotate`).");
    ImGui::SameLine();
    ImGui::Checkbox("Panels in screenshots", &rec.screenshot_ui);
    tooltip("F / Screenshot save the window as shown, panels included; off: the picture alone.");
}

void draw_recording_panel(RecordingParams& rec, Requests& requests, const PanelContext& ctx, bool* open) {
    if (!ImGui::Begin("Recording", open, kPanelFlags)) {
        ImGui::End();
        return;
    }
    draw_saved_frame_options(rec);
    const RecordingView& view = ctx.recording;
    if (view.active) {
        const RecorderStatus& s = view.status;
        ImGui::TextColored(kError, "REC");
        ImGui::SameLine();
        ImGui::Text("frame %lld: %lld recorded, %lld written", view.frame_on_screen, s.captured, s.written);
        wrapped(kDim,
                view.folder + "  (" + std::to_string(view.width) + "x" + std::to_string(view.height) + ")");
        ImGui::TextColored(kDim, "Encoder queue %d / %d", s.queued, s.capacity);
        if (s.waited_last_frame || s.wait_ms_recent > 0.5)
            wrapped(kWarn, "PNG encoding is behind: the simulation waits for it (" +
                               std::to_string(int(s.wait_ms_recent + 0.5)) +
                               " ms per frame); no frame is dropped.");
        if (!view.note.empty()) wrapped(kWarn, view.note);
        if (!s.error.empty()) wrapped(kError, s.error);
        if (ImGui::Button("Stop recording (V)", ImVec2(em() * 12.0f, 0))) requests.toggle_recording = true;
        ImGui::End();
        return;
    }

    ImGui::SetNextItemWidth(em() * 16.0f);
    char folder[512];
    std::snprintf(folder, sizeof folder, "%s", rec.folder.c_str());
    if (ImGui::InputText("Folder", folder, sizeof folder)) rec.folder = folder;
    tooltip("Frames are written here as frame_000000.png, frame_000001.png, ... (created if missing).");
    ImGui::SetNextItemWidth(em() * 6.0f);
    ImGui::InputInt("steps per frame", &rec.steps_per_frame, 1, 10);
    rec.steps_per_frame = std::clamp(rec.steps_per_frame, 1, 100000);
    tooltip(
        "Simulation steps between two recorded frames, whatever the display's frame rate: the movie "
        "is the same on any machine. While recording, this replaces the Simulation panel's steps/frame.");
    ImGui::Checkbox("Include the UI", &rec.include_ui);
    tooltip("Record the panels too (the REC indicator itself never is).");
    ImGui::SameLine();
    ImGui::Checkbox("Overwrite", &rec.overwrite);
    tooltip("Allow replacing frames (and the MP4) of an earlier recording with the same names.");
    ImGui::BeginDisabled(!view.ffmpeg_found);
    ImGui::Checkbox("MP4", &rec.mp4);
    ImGui::EndDisabled();
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip(
            "%s", view.ffmpeg_found
                      ? "Also pipe the frames to ffmpeg for an H.264 MP4 (30 fps)."
                      : "ffmpeg was not found on PATH: install it for MP4s. The PNGs do not need it.");
    if (rec.mp4 && view.ffmpeg_found) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(em() * 11.0f);
        char file[512];
        std::snprintf(file, sizeof file, "%s", rec.mp4_file.c_str());
        if (ImGui::InputTextWithHint("##mp4", "<folder>.mp4", file, sizeof file)) rec.mp4_file = file;
    }
    if (ImGui::Button("Record (V)", ImVec2(em() * 12.0f, 0))) requests.toggle_recording = true;
    if (!view.last_result.empty()) wrapped(view.last_result_is_error ? kError : kGood, view.last_result);
    ImGui::End();
}

void draw_recording_indicator(const PanelContext& ctx) {
    const RecordingView& view = ctx.recording;
    if (!view.active) return;
    const ImGuiIO& io = ImGui::GetIO();
    ImDrawList* draw = ImGui::GetForegroundDrawList();
    char text[128];
    std::snprintf(text, sizeof text, "REC  frame %lld", view.frame_on_screen);
    const bool behind = view.status.waited_last_frame;
    const char* extra = behind ? "   encoder behind: simulation waiting" : "";
    const float pad = em() * 0.45f, r = em() * 0.38f;
    const ImVec2 size = ImGui::CalcTextSize(text);
    const ImVec2 extra_size = ImGui::CalcTextSize(extra);
    const float width = pad * 3 + 2 * r + size.x + extra_size.x;
    const ImVec2 min(io.DisplaySize.x * 0.5f - width * 0.5f, ImGui::GetFrameHeight() + em() * 0.4f);
    const ImVec2 max(min.x + width, min.y + size.y + 2 * pad);
    draw->AddRectFilled(min, max, IM_COL32(10, 10, 14, 190), em() * 0.3f);
    // The dot blinks once a second, like a camera's.
    const bool lit = std::fmod(ImGui::GetTime(), 1.0) < 0.65;
    draw->AddCircleFilled(ImVec2(min.x + pad + r, (min.y + max.y) * 0.5f), r,
                          lit ? IM_COL32(235, 45, 45, 255) : IM_COL32(120, 30, 30, 255));
    draw->AddText(ImVec2(min.x + pad * 2 + 2 * r, min.y + pad), IM_COL32(240, 240, 240, 255), text);
    if (behind)
        draw->AddText(ImVec2(min.x + pad * 2 + 2 * r + size.x, min.y + pad), IM_COL32(255, 200, 80, 255),
                      extra);
}

namespace {
void draw_overlay(const PanelContext& ctx, const ViewerParams& params) {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y - em() * 0.5f), ImGuiCond_Always,
                            ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.45f);
    if (ImGui::Begin("##status", nullptr, kOverlayFlags)) {
        ImGui::Text("%s  |  N = %zu  |  %.*s  |  %s  |  %s%s", ctx.scene.name.c_str(),
                    ctx.sim.size(), int(ctx.sim.backend().name().size()), ctx.sim.backend().name().data(),
                    time_text(ctx.sim.time(), ctx.scene.units).c_str(), fps_text(ctx.perf.fps()).c_str(),
                    params.sim.paused ? "  |  PAUSED" : "");
        if (ctx.sim.path() == TransferPath::HostCopy)
            ImGui::TextColored(kWarn, "CUDA-GL interop unavailable: positions are copied through the host");
        for (const auto& m : ctx.recent_messages)
            if (m != ctx.toast) ImGui::TextColored(kWarn, "%s", m.c_str());
        if (!ctx.toast.empty()) ImGui::TextColored(kGood, "%s", ctx.toast.c_str());
    }
    ImGui::End();
}
}  // namespace

namespace {
// The backend badge, bottom right, GPU green, CPU amber: a small window, so that it goes with the
// panels (in frames recorded with them, never in frames saved without them).
void draw_backend_badge(const PanelContext& ctx) {
    const ImGuiIO& io = ImGui::GetIO();
    const std::string backend(ctx.sim.backend().name());
    const bool gpu = backend == "cuda";
    const float pad = em() * 0.6f;
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - pad, io.DisplaySize.y - pad * 0.7f), ImGuiCond_Always,
                            ImVec2(1.0f, 1.0f));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, gpu ? IM_COL32(30, 110, 60, 200) : IM_COL32(140, 95, 20, 200));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(pad * 0.5f, pad * 0.3f));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowMinSize, ImVec2(1.0f, 1.0f));  // not the default 32 px: as tall as its text
    if (ImGui::Begin("##backend", nullptr, kOverlayFlags))
        ImGui::TextColored(ImVec4(1, 1, 1, 1), "%s", gpu ? "GPU (CUDA)" : ("CPU (" + backend + ")").c_str());
    ImGui::End();
    ImGui::PopStyleVar(3);
    ImGui::PopStyleColor();
}
}  // namespace

// A scale bar (a round length that is about 120 pixels at the camera's target), the colour legend
// (one swatch per galaxy when colouring by galaxy) and, for saved frames, the model time, bottom
// left, in the background draw list: under the panels.
void draw_annotations(const PanelContext& ctx, const ViewerParams& params) {
    const ImGuiIO& io = ImGui::GetIO();
    ImDrawList* draw = ImGui::GetBackgroundDrawList();
    const float pad = em() * 0.6f;
    const ImU32 text = IM_COL32(225, 228, 235, 230), dim = IM_COL32(160, 166, 180, 220);
    float y = io.DisplaySize.y - pad - ImGui::GetFontSize();

    // Scale bar.
    const float px_per_unit = ctx.camera.focal_pixels(io.DisplaySize.y) / std::max(ctx.camera.distance(), 1e-6f);
    if (px_per_unit > 0 && std::isfinite(px_per_unit)) {
        const double want = 120.0 / px_per_unit;
        const double decade = std::pow(10.0, std::floor(std::log10(want)));
        double len = decade;
        for (double f : {2.0, 5.0, 10.0})
            if (decade * f <= want) len = decade * f;
        const float w = float(len * px_per_unit);
        const bool physical = ctx.scene.units.time_unit_myr > 0;
        char label[64];
        std::snprintf(label, sizeof label, "%g %s", len, physical ? ctx.scene.units.length.c_str() : "length units");
        const float x = pad, bar_y = y + ImGui::GetFontSize() * 0.5f;
        draw->AddLine(ImVec2(x, bar_y), ImVec2(x + w, bar_y), text, 2.0f);
        draw->AddLine(ImVec2(x, bar_y - 4), ImVec2(x, bar_y + 4), text, 2.0f);
        draw->AddLine(ImVec2(x + w, bar_y - 4), ImVec2(x + w, bar_y + 4), text, 2.0f);
        draw->AddText(ImVec2(x + w + pad * 0.6f, y), text, label);
        y -= ImGui::GetFontSize() * 1.5f;
    }

    // Legend.
    if (params.render.colour_mode == render::ColourMode::Galaxy && ctx.galaxies > 1) {
        float x = pad;
        for (int k = 0; k < ctx.galaxies && k < 8; ++k) {
            const glm::vec3 c = render::galaxy_colour(k);
            const ImU32 col = IM_COL32(int(255 * std::pow(c.r, 1 / 2.2f)), int(255 * std::pow(c.g, 1 / 2.2f)),
                                       int(255 * std::pow(c.b, 1 / 2.2f)), 255);
            const float s = ImGui::GetFontSize() * 0.7f;
            draw->AddRectFilled(ImVec2(x, y + s * 0.2f), ImVec2(x + s, y + s * 1.2f), col, 2.0f);
            const std::size_t kk = std::size_t(k);
            const std::string name = kk < ctx.scene.galaxy_names.size() && !ctx.scene.galaxy_names[kk].empty()
                                         ? ctx.scene.galaxy_names[kk]
                                         : "galaxy " + std::to_string(k + 1);
            draw->AddText(ImVec2(x + s + pad * 0.4f, y), dim, name.c_str());
            x += s + pad * 1.4f + ImGui::CalcTextSize(name.c_str()).x;
        }
        y -= ImGui::GetFontSize() * 1.5f;
    }

    // The model time, for frames saved without the status bar that shows it on screen.
    if (params.recording.annotate) draw->AddText(ImVec2(pad, y), text, time_text(ctx.sim.time(), ctx.scene.units).c_str());
}

void draw_help_panel(bool* open) {
    const ImGuiIO& io = ImGui::GetIO();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(0.97f);  // read over the panels behind it
    ImGui::SetNextWindowFocus();
    if (!ImGui::Begin("Help", open, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse)) {
        ImGui::End();
        return;
    }
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        for (const auto& [key, action] : key_bindings()) {
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            ImGui::TextColored(kWarn, "%s", key);
            ImGui::TableSetColumnIndex(1);
            ImGui::TextUnformatted(action);
        }
        ImGui::EndTable();
    }
    ImGui::End();
}

void draw_ui(ViewerParams& params, PanelVisibility& visible, Requests& requests, const PanelContext& ctx) {
    if (ImGui::BeginMainMenuBar()) {
        if (ImGui::BeginMenu("File")) {
            if (ImGui::MenuItem("Open...", "Ctrl+O")) params.show_open_dialog = true;
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("View")) {
            if (ImGui::MenuItem("Reset layout")) visible.layout_frames = 0;
            ImGui::SetNextItemWidth(em() * 8.0f);
            ImGui::SliderFloat("UI scale", &visible.ui_scale, 0.6f, 2.5f, "%.2f");
            ImGui::Separator();
            ImGui::MenuItem("Kernel", nullptr, &visible.kernel);
            ImGui::MenuItem("Simulation", nullptr, &visible.simulation);
            ImGui::MenuItem("Rendering", nullptr, &visible.rendering);
            ImGui::MenuItem("Recording", nullptr, &visible.recording);
            ImGui::MenuItem("Encounter", nullptr, &visible.encounter);
            ImGui::MenuItem("Debug", nullptr, &params.show_debug);
            ImGui::Separator();
            if (ImGui::MenuItem("Hide UI", "H")) params.show_ui = false;
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("Simulation")) {
            if (ImGui::MenuItem(params.sim.paused ? "Resume" : "Pause", "Space"))
                params.sim.paused = !params.sim.paused;
            if (ImGui::MenuItem("Single step", "N")) {
                params.sim.paused = true;
                requests.single_step = true;
            }
            if (ImGui::MenuItem("Reset", "R")) requests.reset = true;
            if (ImGui::MenuItem("Screenshot", "F")) requests.screenshot = true;
            if (ImGui::MenuItem(ctx.recording.active ? "Stop recording" : "Record", "V"))
                requests.toggle_recording = true;
            ImGui::Separator();
            if (ImGui::MenuItem("Quit", "Esc")) requests.quit = true;
            ImGui::EndMenu();
        }
        if (ImGui::BeginMenu("Help")) {
            ImGui::MenuItem("Keys and mouse", "F1", &params.show_help);
            ImGui::EndMenu();
        }
        // Bytes copied device-to-host by this frame's steps: 0 on the interop path.
        char right[160];
        std::snprintf(right, sizeof right, "%s   %s   %s D2H/frame", fps_text(ctx.perf.fps()).c_str(),
                      describe(ctx.sim.path()),
                      bytes_text(double(ctx.perf.bytes_to_host_last_frame())).c_str());
        ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::CalcTextSize(right).x - em());
        ImGui::TextColored(kDim, "%s", right);
        ImGui::EndMainMenuBar();
    }
    // The default layout: Kernel (collapsed) top left with Simulation under it, Rendering top
    // right, Recording (collapsed) under whichever column is shorter, Debug bottom left; the
    // middle of the window stays free. Placed for the first few frames (auto-sized panels learn
    // their size from a frame of content) and after View > Reset layout or a resize; in between,
    // the panels stay where they are dragged. Collapse, close (or H) to clear the view.
    ImGuiIO& io = ImGui::GetIO();
    if (visible.base_font_scale <= 0) visible.base_font_scale = io.FontGlobalScale;
    io.FontGlobalScale = visible.base_font_scale * std::clamp(visible.ui_scale, 0.5f, 3.0f);
    if (io.DisplaySize.x != visible.layout_width || io.DisplaySize.y != visible.layout_height) {
        visible.layout_frames = 0;
        visible.layout_width = io.DisplaySize.x;
        visible.layout_height = io.DisplaySize.y;
    }
    const bool place = visible.layout_frames < 4;
    if (place) ++visible.layout_frames;
    const ImGuiCond cond = place ? ImGuiCond_Always : ImGuiCond_Once;

    const float margin = em() * 0.5f, top = ImGui::GetFrameHeight() + margin;
    float left_y = top;
    if (visible.kernel) {
        ImGui::SetNextWindowPos(ImVec2(margin, top), cond);
        // For tuning a GPU: out of the way until opened, unless the run started on the tree code,
        // whose theta and force error live here.
        ImGui::SetNextWindowCollapsed(params.kernel.gravity.gravity != Gravity::Tree, ImGuiCond_Once);
        draw_kernel_panel(params.kernel, requests, ctx, &visible.kernel, &left_y);
        left_y += margin;
    }
    float right_y = top;
    if (visible.rendering) {
        ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - margin, top), cond, ImVec2(1.0f, 0.0f));
        draw_rendering_panel(params.render, params.camera, requests, ctx, &visible.rendering, &right_y);
        right_y += margin;
    }
    if (visible.simulation) {
        // Under Kernel when it fits there (its height is last frame's) above the scale bar, legend
        // and badge of the bottom rows, else under Rendering.
        const float bottom = io.DisplaySize.y - margin - ImGui::GetFontSize() * 3.2f;
        const bool fits_right = right_y + visible.simulation_height <= bottom;
        const bool fits_left = left_y + visible.simulation_height <= bottom;
        if (fits_left || !fits_right) {
            // Where it fits in neither column (hermite4 adds its level histogram), it scrolls
            // rather than cover the legend and the scale bar.
            ImGui::SetNextWindowPos(ImVec2(margin, left_y), cond);
            ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(FLT_MAX, std::max(bottom - left_y, em() * 10.0f)));
            left_y += visible.simulation_height + margin;
        } else {
            ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - margin, right_y), cond, ImVec2(1.0f, 0.0f));
            right_y += visible.simulation_height + margin;
        }
        draw_simulation_panel(params.sim, requests, ctx, &visible.simulation, &visible.simulation_height);
    }
    if (visible.recording) {
        // Next in whichever column has more room left (its height is last frame's); it starts
        // collapsed, being used less than the others.
        const bool left = left_y <= right_y;
        if (left)
            ImGui::SetNextWindowPos(ImVec2(margin, left_y), cond);
        else
            ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x - margin, right_y), cond, ImVec2(1.0f, 0.0f));
        ImGui::SetNextWindowCollapsed(!ctx.recording.active, ImGuiCond_Appearing);
        draw_recording_panel(params.recording, requests, ctx, &visible.recording);
    }
    if (visible.encounter) {  // a tool opened on purpose: top centre, in front
        ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, top), place ? cond : ImGuiCond_Appearing, ImVec2(0.5f, 0.0f));
        draw_encounter_panel(params.encounter, &visible.encounter);
    }
    if (params.show_debug) {
        ImGui::SetNextWindowPos(ImVec2(margin, io.DisplaySize.y - margin * 4.0f), cond, ImVec2(0.0f, 1.0f));
        draw_debug_panel(ctx, &params.show_debug);
    }
    if (params.show_help) draw_help_panel(&params.show_help);
    draw_overlay(ctx, params);
    draw_annotations(ctx, params);
    draw_backend_badge(ctx);
    draw_recording_indicator(ctx);
}

}  // namespace nbody::app
