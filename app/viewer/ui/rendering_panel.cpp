// The Rendering panel: colouring, dark matter, trails, point size, exposure and glow, camera
// presets and following, screenshot.
#include "ui_panels.hpp"
#include "ui_selection.hpp"
#include "ui_widgets.hpp"
#include "render_quality.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace nbody::app {

namespace {

// A combo over the scene's galaxies by name ("Milky Way", not "galaxy 1"), `none` first when
// given (index -1).
void galaxy_combo(const char* label, int& index, const std::vector<std::string>& names, int galaxies, const char* none) {
    std::string items = none ? std::string(none) + '\0' : std::string();
    for (int k = 0; k < galaxies; ++k) items += render::galaxy_name(names, k) + '\0';
    const int offset = none ? 1 : 0;
    int shown = index + offset;
    if (ImGui::Combo(label, &shown, items.c_str())) index = shown - offset;
}

// Point size, exposure and glow follow N (render/sprite_looks.hpp) until the user moves one; this
// gives them back to the rule.
void looks_auto_button(render::RenderSettings& r, std::size_t bodies) {
    const render::LooksChosen& c = r.looks_chosen;
    ImGui::BeginDisabled(!c.point_size && !c.exposure && !c.glow);
    if (ImGui::SmallButton("Looks for N")) {
        r.looks_chosen = {};
        render::apply_looks_for_bodies(r, bodies);
    }
    ImGui::EndDisabled();
    tooltip("Point size, exposure and glow as chosen for this number of bodies (what a slider or --point-size, "
            "--exposure, --glow set stays until this is pressed): above 65,536 bodies thinner sprites, each "
            "particle's light kept, and less glow, so that a dense disk keeps its structure instead of a glowing "
            "blob. Greyed out while all three follow N.");
}

}  // namespace

void draw_rendering_panel(render::RenderSettings& r, CameraParams& camera, bool& cache_panels,
                          Requests& requests, const PanelContext& ctx, bool* open, float* bottom) {
    if (!ImGui::Begin("Rendering", open, kPanelFlags)) {
        report_extent(bottom, nullptr);
        ImGui::End();
        return;
    }
    // A software renderer's frame is drawn smaller (render_quality.hpp): said first, where a panel
    // that scrolls at 720 lines still shows it.
    if (const std::string note =
            render_scale_note(ctx.gl.renderer, r.render_scale, r.coarse_glow, cache_panels);
        !note.empty()) {
        wrapped(ImVec4(0.95f, 0.80f, 0.45f, 1.0f), note);
        ImGui::Separator();
    }
    ImGui::PushItemWidth(em() * 10.0f);
    static const char* modes[] = {"Galaxy", "Component", "Speed", "Plain", "Stellar mass"};  // ColourMode's order
    int mode = int(r.colour_mode);
    if (ImGui::Combo("Colour by", &mode, modes, IM_ARRAYSIZE(modes))) r.colour_mode = render::ColourMode(mode);
    tooltip(
        "Galaxy: each galaxy its own hue, bulges whiter. Component: disk / bulge / halo / stars.\n"
        "Speed: through a colour map. The speed is each particle's displacement between the two "
        "ping-pong position buffers divided by the time between them (the leapfrog drift velocity), "
        "so it needs no velocity copy: it works on every path, CUDA-GL interop included, and costs "
        "no host transfer.\nStellar mass: each star's main-sequence temperature as a blackbody colour, heavier "
        "stars wider and brighter (star clusters; the legend gives the masses).");
    if (r.colour_mode == render::ColourMode::Speed) {
        int map = int(r.colour_map);
        const char* names[render::kColorMapNames.size()];
        for (std::size_t i = 0; i < render::kColorMapNames.size(); ++i)
            names[i] = render::kColorMapNames[i].data();
        if (ImGui::Combo("Colour map", &map, names, int(render::kColorMapNames.size())))
            r.colour_map = render::ColorMap(map);
        // Shown in the scene's velocity unit (km/s in galactic units), kept in internal units.
        const auto [factor, unit] = render::split_unit(ctx.scene.units.velocity);
        const float f = factor > 0 ? float(factor) : 1.0f;
        const std::string format = unit.empty() ? "%.3g (N-body units)" : "%.3g " + unit;
        float shown = (r.speed_scale > 0 ? r.speed_scale : ctx.auto_speed_scale) * f;
        if (ImGui::DragFloat("Top speed", &shown, shown * 0.01f, 1e-4f * f, 1e4f * f, format.c_str(),
                             ImGuiSliderFlags_Logarithmic))
            r.speed_scale = shown / f;
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
    render::LooksChosen& chosen = r.looks_chosen;
    chosen.point_size |= ImGui::SliderFloat("Point size", &r.point_size, 0.5f, 24.0f, "%.1f px", ImGuiSliderFlags_Logarithmic);
    ImGui::Checkbox("Size with distance", &r.size_with_distance);
    tooltip("Nearer particles are drawn larger: a depth cue when orbiting.");
    chosen.exposure |= ImGui::SliderFloat("Exposure", &r.exposure, 0.02f, 50.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
    ImGui::Checkbox("Constant brightness when zooming", &r.constant_brightness_zoom);
    chosen.glow |= ImGui::SliderFloat("Glow", &r.glow, 0.0f, 3.0f, "%.2f");
    ImGui::SameLine();
    ImGui::Checkbox("coarse", &r.coarse_glow);
    tooltip("The glow built from a quarter of the frame instead of half: a little softer, two passes and most "
            "of its pixels fewer. On by default with a smaller render scale on a software renderer.");
    looks_auto_button(r, ctx.sim.size());
    ImGui::Checkbox("32-bit float target", &r.float32_target);
    tooltip("Accumulate light in RGBA32F instead of RGBA16F: only matters for extreme exposures.");
    int sprites = int(r.sprites);
    const char* sprite_ways[] = {"auto", "GL points", "compute", "CUDA"};
    if (ImGui::Combo("Sprites", &sprites, sprite_ways, IM_ARRAYSIZE(sprite_ways)))
        r.sprites = render::SpriteDrawing(sprites);
    tooltip("GL points: one point sprite per particle through the rasteriser. Compute: a compute pass adds each "
            "particle's light into a few size layers that are then blurred: the same picture at a fraction of "
            "the cost where raster hardware is scarce (H100). CUDA: the same sums added by CUDA kernels in the "
            "simulation's own context (cuda backend with interop), so that drawing and stepping share the GPU "
            "instead of taking turns. Auto: compute from 65,536 bodies up, CUDA when the cuda backend steps "
            "beside the frame loop.");
    if (!ctx.sprites_refused.empty()) ImGui::TextWrapped("CUDA sprites drawn by compute: %s", ctx.sprites_refused.c_str());
    ImGui::SliderFloat("Render scale", &r.render_scale, render::kMinRenderScale, 1.0f, "%.2f");
    tooltip(
        "The particles, glow and tone mapping are drawn at this fraction of the window's width and height, "
        "then enlarged onto it; the panels stay sharp. 1 on a GPU; 0.5 by default on a software renderer "
        "(Mesa llvmpipe), where every pixel of every pass costs CPU time. --render-scale sets it at start.");
    ImGui::Checkbox("Panels kept as a picture", &cache_panels);
    tooltip(
        "The panels are drawn into a picture only when they change (at once after a key, a click or the "
        "mouse over a panel; numbers that change every frame at most 4 times a second) and the picture is "
        "blended over each frame. On by default on a software renderer, where drawing the panels every "
        "frame costs a quarter of it; --ui-cache sets it at start.");
    ImGui::Checkbox("Particles kept until they change", &r.cache_particles);
    tooltip(
        "A frame that would draw the particles as the frame before did (no new step shown, the camera, "
        "size and looks unchanged, no new trail point) keeps their light, tone mapped, and draws only the panels: "
        "beside a "
        "simulation slower than the display, the GPU (or the CPU on a software renderer) then goes to the "
        "steps. Off: every particle every frame. --particle-cache sets it at start.");
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
        ImGui::SetNextItemWidth(em() * 8.0f);
        galaxy_combo("##pg", camera.preset_galaxy, ctx.scene.galaxy_names, galaxies, nullptr);
        tooltip("The galaxy whose disk the two disk views look at.");
        ImGui::SetNextItemWidth(em() * 10.0f);
        galaxy_combo("Follow", camera.follow_galaxy, ctx.scene.galaxy_names, galaxies, "nothing");
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
}  // namespace nbody::app
