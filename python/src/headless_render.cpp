#include "headless_render.hpp"

#include <imgui.h>

#include <algorithm>
#include <stdexcept>

#include "nbody/sim/ic/stellar.hpp"
#include "nbody/render/annotations.hpp"
#include "nbody/render/camera.hpp"
#include "nbody/render/egl_context.hpp"
#include "nbody/render/frame_capture.hpp"
#include "nbody/render/gl_objects.hpp"
#include "nbody/render/imgui_layer.hpp"
#include "nbody/render/particle_buffers.hpp"

namespace nbody::python {

// The largest frame the viewer draws (`--size`): a render target beyond it may not be allocatable.
constexpr int kMinSide = 16, kMaxSide = 16384;

render::ColourMode parse_colour_mode(const std::string& name) {
    if (name == "galaxy") return render::ColourMode::Galaxy;
    if (name == "component") return render::ColourMode::Component;
    if (name == "speed") return render::ColourMode::Speed;
    if (name == "plain") return render::ColourMode::Plain;
    if (name == "mass") return render::ColourMode::Mass;
    throw std::invalid_argument("colour '" + name + "' is not one of galaxy, component, speed, plain, mass");
}

struct HeadlessRender::Impl {
    render::EglContext egl;  // first: every GL object below is deleted before the context
    render::ParticleRenderer renderer;
    render::ParticleBuffers buffers;
    render::RenderTarget target;
    std::unique_ptr<render::ImGuiLayer> ui;  // the first annotated frame makes it
    // Dear ImGui's context is global: each renderer makes its own current before using or deleting
    // it, so that several simulations can draw annotated frames (ImGuiLayer deletes the current one).
    ImGuiContext* ui_context = nullptr;
};

namespace {

int count_galaxies(const State& state) {
    int n = 1;
    for (const auto g : state.galaxy) n = std::max(n, int(g) + 1);
    return n;
}

}  // namespace

HeadlessRender::HeadlessRender() : impl_(std::make_unique<Impl>()) {}
HeadlessRender::~HeadlessRender() {
    if (!impl_) return;
    impl_->egl.make_current();
    if (impl_->ui_context) ImGui::SetCurrentContext(impl_->ui_context);
}

std::string HeadlessRender::description() const {
    return impl_->egl.description() + ", " + impl_->egl.gl_info().renderer;
}

std::vector<std::uint8_t> HeadlessRender::draw(const State& state, double dt, const FrameRequest& r) {
    if (r.width < kMinSide || r.height < kMinSide || r.width > kMaxSide || r.height > kMaxSide)
        throw std::invalid_argument("'" + std::to_string(r.width) + "x" + std::to_string(r.height) +
                                    "' is outside the supported sizes 16x16 to 16384x16384");
    Impl& g = *impl_;
    g.egl.make_current();
    // A later frame of the same system uploads the positions alone, as the viewer's host path does:
    // the buffer left behind then holds the last frame's, which colouring by speed reads.
    // The speed colours' scale (a percentile over N speeds: ~10 ms at 1M) is set when a system is
    // loaded and kept while it runs, as the viewer sets it once per scene.
    if (g.buffers.size() == state.size() && state.time > g.buffers.current_time()) {
        g.buffers.upload(state.pos_mass, state.time);
    } else {
        g.buffers.load(state, dt);
        g.renderer.set_auto_speed_scale(render::typical_speed(state));
    }
    g.target.ensure(r.width, r.height, GL_RGBA8);
    render::RenderSettings settings;
    settings.colour_mode = r.colour;
    settings.hide_halo = !r.show_halo;
    if (r.point_size) settings.point_size = *r.point_size;
    if (r.exposure) settings.exposure = *r.exposure;
    settings.looks_chosen.point_size = r.point_size.has_value();
    settings.looks_chosen.exposure = r.exposure.has_value();
    render::apply_looks_for_bodies(settings, state.size());
    settings.solar_masses_per_unit = float(ic::solar_masses_per_unit(r.units, state));
    const render::OrbitCamera camera(r.camera);
    g.renderer.draw(g.buffers, camera, settings, {g.target.framebuffer(), r.width, r.height, 1.0f});
    if (r.annotate) {
        if (!g.ui) {
            ImGui::SetCurrentContext(nullptr);  // else ImGui::CreateContext keeps another renderer's current
            g.ui = std::make_unique<render::ImGuiLayer>(nullptr, 1.0f);
            g.ui_context = ImGui::GetCurrentContext();
        }
        ImGui::SetCurrentContext(g.ui_context);
        g.ui->begin_frame(r.width, r.height, 1.0f / 60.0f);
        render::draw_annotations({camera, r.units, r.colour, count_galaxies(state), r.galaxy_names, r.time});
        g.ui->finish_frame();
        g.ui->draw_layers(g.target.framebuffer(), r.width, r.height, render::ImGuiLayer::kBackground);
    }
    const render::Image image = render::read_framebuffer(g.target.framebuffer(), r.width, r.height);
    std::vector<std::uint8_t> rgb(std::size_t(r.width) * std::size_t(r.height) * 3);
    for (std::size_t p = 0, n = std::size_t(r.width) * std::size_t(r.height); p < n; ++p)
        for (int c = 0; c < 3; ++c) rgb[p * 3 + std::size_t(c)] = image.rgba[p * 4 + std::size_t(c)];
    return rgb;
}

}  // namespace nbody::python
