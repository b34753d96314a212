// Defaults that fit the machine at start-up (issue 33, item 3): a galaxy scene in a window, or with
// --bodies auto, runs the tree code with the N that machine_defaults.hpp's rule gives here. The
// measuring and fitting live there (tested on the CPU); these are its two thin callers.

#include <cstdio>
#include <iostream>
#include <utility>

#include "nbody/render/gl.hpp"
#include "ui_panels.hpp"
#include "viewer.hpp"
#if NBODY_HAVE_CUDA
#include "nbody/sim/cuda_backend.hpp"
#endif

namespace nbody::app {

namespace {

// One step's GPU time from CUDA events: the host's clock would time the launches, which return
// before the work is done.
StepClock gpu_step_clock() {
#if NBODY_HAVE_CUDA
    return [](Backend& backend, const StepParams& params) {
        return dynamic_cast<CudaBackend&>(backend).time_steps_ms(params, 1) / 1e3;
    };
#else
    return host_step_seconds;
#endif
}

}  // namespace

GravityOptions Viewer::fit_scene_to_machine(const ViewOptions& o, std::size_t listed_bodies) {
    GravityOptions gravity = o.kernel.gravity;
    if (!is_galaxy_scene(scene_.state) || o.hermite) return gravity;
    if (!o.gravity_given && sim_.backend().gravity().gravity != Gravity::Tree) {
        gravity.gravity = "tree";
        sim_.backend().set_gravity(gravity.config());  // the fit below times tree steps
        std::cerr << "nbody: a galaxy on the " << sim_.backend().name()
                  << " backend: the tree code computes the forces (--gravity direct for every pair)\n";
    }
    // N asked for (no start-up second spent measuring), or a particle file's own.
    if (o.bodies || !scales_to_any_n(scene_path_)) return gravity;
    if (sim_.cuda())
        fit_gpu_scene(o);
    else
        fit_host_scene(listed_bodies);
    return gravity;
}

// The CPU: as many bodies as keep the simulation near 5 frames/s at the scene's steps per frame.
void Viewer::fit_host_scene(std::size_t listed_bodies) {
    show_start_message("Timing a step of " + std::to_string(scene_.state.size()) + " bodies on the " +
                       std::string(sim_.backend().name()) + " backend, to choose how many to show ...");
    machine_fit_ = MachineFit{measure_step(sim_.backend(), scene_.state, scene_.params), std::nullopt};
    const std::size_t fit = fit_host_bodies(machine_fit_->model, params_.sim.steps_per_frame, listed_bodies);
    std::cerr << "nbody: a step of " << scene_.state.size() << " bodies took "
              << 1e3 * machine_fit_->model.seconds(scene_.state.size()) << " ms here: showing " << fit
              << " bodies, about " << kHostSimulatedFramesPerSecond << " simulated frames/s at "
              << params_.sim.steps_per_frame << " steps per frame (choose with --bodies)\n";
    if (fit != scene_.state.size()) show_fitted_scene(make_scene(scene_path_, fit));
}

// The GPU: one step per frame (unless --steps-per-frame), N the largest power of two whose tree
// step takes kGpuStepBudgetSeconds of GPU time, measured on the scene at kGpuProbeBodies.
void Viewer::fit_gpu_scene(const ViewOptions& o) {
    if (!o.steps_per_frame) {
        params_.sim.steps_per_frame = 1;
        params_.sim.model_time_per_second = 60.0 * params_.sim.step.dt;
        params_.recording.steps_per_frame = 1;
    }
    std::fprintf(stderr, "nbody: timing a tree step of the scene at %zu bodies on the GPU ...\n", kGpuProbeBodies);
    show_start_message("Timing a tree step of " + std::to_string(kGpuProbeBodies) +
                       " bodies on the GPU, to choose how many to show ...");
    Scene probe = make_scene(scene_path_, kGpuProbeBodies);
    const StepModel model = measure_step(sim_.backend(), probe.state, scene_.params, gpu_step_clock());
    const std::size_t fit = fit_gpu_bodies(model, params_.sim.steps_per_frame);
    machine_fit_ = MachineFit{model, params_.sim.steps_per_frame};
    std::fprintf(stderr,
                 "nbody: a tree step of %zu bodies took %.2f ms on the GPU: showing %zu bodies at %d step%s per "
                 "frame, the largest power of two whose steps fit %.0f ms a frame by N log N (%.2f ms; %zu at "
                 "least; --bodies N, --steps-per-frame S to choose)\n",
                 kGpuProbeBodies, 1e3 * model.seconds(kGpuProbeBodies), fit, params_.sim.steps_per_frame,
                 params_.sim.steps_per_frame == 1 ? "" : "s", 1e3 * kGpuStepBudgetSeconds,
                 1e3 * params_.sim.steps_per_frame * model.seconds(fit), kGpuMinBodies);
    show_fitted_scene(fit == probe.state.size() ? std::move(probe) : make_scene(scene_path_, fit));
}

void Viewer::show_start_message(const std::string& text) {
    if (!ui_ || surface_->headless()) return;  // headless: no one looks; stderr says it
    const render::DrawTarget target = surface_->target();
    if (target.width <= 0 || target.height <= 0) return;
    const glm::vec3 sky = params_.render.background;  // linear, as the tone mapping writes it: near black
    glBindFramebuffer(GL_FRAMEBUFFER, target.framebuffer);
    glViewport(0, 0, target.width, target.height);
    glDisable(GL_SCISSOR_TEST);
    glClearColor(sky.r, sky.g, sky.b, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ui_->lay_out_unseen(target.width, target.height, 2, [&] { draw_start_message(text); });
    ui_->begin_frame(target.width, target.height, 1.0f / 60.0f);
    draw_start_message(text);
    ui_->finish_frame();
    ui_->draw_layers(target.framebuffer, target.width, target.height, render::ImGuiLayer::kAllLayers);
    surface_->present();
}

// The scene at the fitted N in place of the listed one, with the --softening given.
void Viewer::show_fitted_scene(Scene fitted) {
    fitted.params.softening = scene_.params.softening;
    scene_ = std::move(fitted);
    params_.sim.bodies = int(scene_.state.size());
    camera_.reset(scene_.camera);
}

}  // namespace nbody::app
