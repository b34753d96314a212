#pragma once
// Picking a body with the mouse, and reading one body's data back, on every transfer path (the
// positions are always in the GL particle buffers: uploaded from the host, or written by CUDA).
//
// pick(): a compute shader projects every body with the camera and finds the one whose image is
// nearest the cursor within a radius (two passes over the buffer, shaders/pick.comp); 8 bytes
// come back. It runs on a click, not per frame. read_body(): 32 bytes (the body in both
// ping-pong buffers), cheap enough for every frame while a body is selected; it waits for the GPU
// to finish writing the buffer, which the frame's drawing waits for anyway.

#include <cstddef>
#include <glm/glm.hpp>
#include <optional>

#include "nbody/render/camera.hpp"
#include "nbody/render/gl_objects.hpp"
#include "nbody/render/particle_buffers.hpp"
#include "nbody/render/shader.hpp"

namespace nbody::render {

struct PickRequest {
    glm::vec2 pixel{0.0f};      // image pixels, x right, y down from the top-left corner
    int width = 0, height = 0;  // the image the camera draws
    float radius_px = 8.0f;     // bodies further than this from the cursor are not picked
    bool skip_halo = false;     // hidden dark matter cannot be picked
};

// One body as the GPU holds it now.
struct BodySample {
    glm::vec3 position{0.0f};
    float mass = 0;
    // Displacement between the two ping-pong buffers over the time between them: for the
    // leapfrog, exactly its drift velocity v(t - dt/2); on the host-upload path the mean
    // velocity over the last frame's steps. Unknown (false) before the first step.
    glm::vec3 velocity{0.0f};
    bool velocity_known = false;
};

class BodyPicker {
  public:
    BodyPicker();  // loads shaders/pick.comp

    // The body nearest the cursor in screen space within the radius (the smallest index among
    // exact ties), or nothing.
    std::optional<std::size_t> pick(const ParticleBuffers& particles, const OrbitCamera& camera,
                                    const PickRequest& request);

  private:
    ShaderProgram program_;
    GlBuffer result_;
};

// Reads body `index` from the current and previous position buffers (throws std::out_of_range
// past the end).
BodySample read_body(const ParticleBuffers& particles, std::size_t index);

}  // namespace nbody::render
