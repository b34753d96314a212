// The selected body (a click, --pick or --select) and the camera path of `record --camera path:`.
// Picking runs a compute pass over the GL position buffer and reads back 8 bytes; while a body is
// selected, each frame reads back its 32 bytes. Never the whole buffer: the same on the CPU paths
// and on CUDA interop.

#include <iostream>

#include "nbody/render/imgui_layer.hpp"
#include "ui_selection.hpp"
#include "viewer.hpp"

namespace nbody::app {

namespace {

// Pixels from the cursor within which a body can be picked (physical pixels at 720 lines; taller
// frames and HiDPI windows scale it, as the sprites are scaled).
constexpr float kPickRadius720 = 8.0f;

SelectionView selection_view(const Scene& scene, std::size_t index, const render::BodySample& sample,
                             const render::DrawTarget& target) {
    SelectionView v;
    v.index = index;
    v.sample = sample;
    v.galaxy = index < scene.state.galaxy.size() ? int(scene.state.galaxy[index]) : 0;
    v.galaxy_name = render::galaxy_name(scene.galaxy_names, v.galaxy);
    v.component = index < scene.state.component.size() ? scene.state.component[index] : Component::Unspecified;
    v.units = &scene.units;
    v.framebuffer_width = target.width;
    v.framebuffer_height = target.height;
    return v;
}

}  // namespace

void Viewer::pick_body(glm::vec2 pixel, const render::DrawTarget& target) {
    render::PickRequest request;
    request.pixel = pixel;
    request.width = target.width;
    request.height = target.height;
    request.radius_px = kPickRadius720 * std::max(1.0f, float(target.height) / 720.0f);
    request.skip_halo = params_.render.hide_halo;
    try {
        params_.selected = picker_.pick(sim_.buffers(), camera_, request);
        if (!params_.selected) return;  // a click on empty space clears the selection
        const render::BodySample sample = render::read_body(sim_.buffers(), *params_.selected);
        std::cerr << "nbody: selected " << describe_selected(*params_.selected, sample) << "\n";
    } catch (const std::exception& e) {
        params_.selected.reset();
        say(std::string("picking failed: ") + e.what(), true);
    }
}

std::string Viewer::describe_selected(std::size_t index, const render::BodySample& sample) {
    return describe_body(selection_view(scene_, index, sample, surface_->target()));
}

void Viewer::refresh_selection() {
    selected_sample_.reset();
    if (!params_.selected) return;
    if (*params_.selected >= sim_.size()) {  // the system was replaced by a smaller one
        params_.selected.reset();
        return;
    }
    try {
        selected_sample_ = render::read_body(sim_.buffers(), *params_.selected);
    } catch (const std::exception& e) {
        params_.selected.reset();
        say(std::string("reading the selected body failed: ") + e.what(), true);
    }
}

void Viewer::draw_selection() {
    if (!params_.selected || !selected_sample_) return;
    const render::DrawTarget target = surface_->target();
    draw_selection_panel(params_.selected, selection_view(scene_, *params_.selected, *selected_sample_, target),
                         camera_);
}

void Viewer::apply_camera_path() {
    if (!o_.camera_path) return;
    const render::CameraPose p = o_.camera_path->at(double(frame_));
    camera_.set_pose(glm::vec3(p.target), float(p.azimuth_deg), float(p.elevation_deg), float(p.distance));
}

}  // namespace nbody::app
