// The Kernel panel: the gravity solver (direct or tree, live), the kernel's pair mode, precision
// and tunables (applied at the next step, or refused with the reason), its rates and the table of
// configurations tried, the auto-tuner.
#include "ui_panels.hpp"
#include "ui_widgets.hpp"

#include <imgui.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "viewer_gravity.hpp"

#if NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {

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
        float alpha = float(t.alpha);
        ImGui::SetNextItemWidth(em() * 13.0f);
        if (ImGui::SliderFloat("alpha", &alpha, 0.0f, 0.01f, alpha > 0 ? "%.5f" : "off", ImGuiSliderFlags_Logarithmic)) {
            t.alpha = double(std::clamp(alpha, 0.0f, float(kMaxAlpha)));
            changed = true;
        }
        tooltip("Relative opening criterion: a cell is used only where its error estimate is at most alpha times "
                "the pull its group felt last step; theta then only bounds it. Fewer terms for the same error on "
                "galaxies and clusters (docs/TREE.md). 0: theta alone.");
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
    if (const std::string shares = ctx.sim.gpu_shares_text(); !shares.empty()) wrapped(kDim, "GPUs: " + shares);
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
            wrapped(ImVec4(0.65f, 0.8f, 0.65f, 1.0f), kernel.origin);
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
        ImGui::BeginDisabled(kernel.autotune_running);
        if (ImGui::Button(kernel.autotune_running ? "Auto-tuning..." : "Auto-tune")) requests.autotune = true;
        ImGui::EndDisabled();
        tooltip(
            "Times the kernel configurations (pair modes included) at this N, applies the fastest and "
            "caches it for this GPU and N, so the next start uses it. It runs between two steps while the "
            "window goes on drawing (the spinner says how far it is); the simulation does not advance meanwhile.");
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
    if (ImGui::BeginTable("rates", 2, ImGuiTableFlags_SizingFixedFit)) {
        // The values' column as wide as the longest they get: sized to last frame's text, a value
        // that grew (a slow frame's "1270.09 ms/frame") was cut off for a frame.
        ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
        ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("999.9  (99999.99 ms/frame)").x);
        auto row = [](const std::string& name, const std::string& value, const std::string& help = "") {
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            ImGui::TextColored(kDim, "%s", name.c_str());
            ImGui::TableSetColumnIndex(1);
            ImGui::TextUnformatted(value.c_str());
            if (!help.empty()) tooltip(help.c_str());
        };
        char buf[64];
        // How the step is timed goes in the tooltip: in the value it was cut at the column's edge
        // (device run 106: "6.308 ms (force pass, GPU ev").
        std::snprintf(buf, sizeof buf, "%.3f ms", perf.ms_per_step());
        row("Step", perf.ms_per_step() > 0 ? buf : "-",
            ctx.sim.tunable() ? "The force pass and kick/drift of one step, timed by CUDA events on the GPU" : "");
        for (const RateLine& r : rate_lines(ips, perf.computed_interactions_per_second(), kernel.flops_per_interaction))
            row(r.name, r.value, r.help);
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
        // The tree's caption drops "interactions" (the rows above name them): at 1280x720 the longer
        // one lost its end to the plot's edge.
        std::snprintf(overlay, sizeof overlay,
                      perf.computed_interactions_per_second() > 0 ? "%s/s, direct-sum equiv." : "%s interactions/s",
                      si(ips).c_str());
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
}  // namespace nbody::app
