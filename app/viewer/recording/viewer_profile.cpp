#include "viewer_profile.hpp"

#include <algorithm>
#include <cstdio>

namespace nbody::app {

const char* host_stage_name(HostStage stage) {
    switch (stage) {
        case HostStage::Events:
            return "events";
        case HostStage::Map:
            return "map";
        case HostStage::Launch:
            return "launch";
        case HostStage::Unmap:
            return "unmap";
        case HostStage::Upload:
            return "upload";
        case HostStage::Draw:
            return "draw";
        case HostStage::Ui:
            return "ui";
        case HostStage::Capture:
            return "capture";
        case HostStage::Present:
            return "present";
    }
    return "unknown";
}

void FrameProfile::begin_frame(bool counted) {
    current_.fill(0.0);
    set_aside_ms_ = 0;
    counted_ = counted;
    frame_start_ = Clock::now();
}

void FrameProfile::end_frame() {
    if (!counted_) return;
    for (int s = 0; s < kHostStageCount; ++s) total_[std::size_t(s)] += current_[std::size_t(s)];
    frame_total_ += std::chrono::duration<double, std::milli>(Clock::now() - frame_start_).count() - set_aside_ms_;
    ++frames_;
}

double FrameProfile::host_mean_ms(HostStage stage) const {
    return frames_ > 0 ? total_[std::size_t(stage)] / double(frames_) : 0.0;
}

double FrameProfile::frame_mean_ms() const { return frames_ > 0 ? frame_total_ / double(frames_) : 0.0; }

std::string FrameProfile::report(const GpuTotals& gpu) const {
    if (frames_ == 0) return "  stage breakdown: no frames after the warm-up frame";
    char line[256];
    std::string out = "  stage breakdown, ms per frame (mean of " + std::to_string(frames_) + " frames):\n";
    out += "    host (CPU wall clock):";
    double named = 0;
    for (int s = 0; s < kHostStageCount; ++s) {
        const double ms = host_mean_ms(HostStage(s));
        named += ms;
        std::snprintf(line, sizeof line, " %s %.3f", host_stage_name(HostStage(s)), ms);
        out += line;
    }
    std::snprintf(line, sizeof line, " other %.3f = %.3f\n", std::max(0.0, frame_mean_ms() - named),
                  frame_mean_ms());
    out += line;
    out += "    GPU:";
    if (gpu.cuda_frames > 0) {
        std::snprintf(line, sizeof line, " cuda steps %.3f |", gpu.cuda_step_ms / double(gpu.cuda_frames));
        out += line;
    }
    if (gpu.cuda_sprite_frames > 0) {  // the deposit's kernels; GL's particles stage then times the rest
        std::snprintf(line, sizeof line, " cuda sprites %.3f |", gpu.cuda_sprites_ms / double(gpu.cuda_sprite_frames));
        out += line;
    }
    if (gpu.gl_frames > 0) {
        double gl = 0;
        for (int s = 0; s < render::kGpuStageCount; ++s) {
            const double ms = gpu.gl_ms[std::size_t(s)] / double(gpu.gl_frames);
            gl += ms;
            std::snprintf(line, sizeof line, " gl %s %.3f", render::gpu_stage_name(render::GpuStage(s)), ms);
            out += line;
        }
        std::snprintf(line, sizeof line, " (GL total %.3f)", gl);
        out += line;
        // Frames that kept their particles (--particle-cache) lower the mean per frame; the
        // drawing's own cost is the mean over the frames that drew them.
        const std::size_t p = std::size_t(render::GpuStage::Particles);
        const long long drew = gpu.gl_stage_frames[p];
        if (drew > 0 && drew < gpu.gl_frames) {
            std::snprintf(line, sizeof line, "\n    GPU, the %lld of %lld frames that drew the particles: gl particles %.3f",
                          drew, gpu.gl_frames, gpu.gl_ms[p] / double(drew));
            out += line;
            if (const std::size_t g = std::size_t(render::GpuStage::Glow); gpu.gl_stage_frames[g] > 0) {
                std::snprintf(line, sizeof line, " gl glow %.3f", gpu.gl_ms[g] / double(gpu.gl_stage_frames[g]));
                out += line;
            }
        }
    } else {
        out += " (no GL timer results)";
    }
    return out;
}

std::string FrameProfile::fields(const GpuTotals& gpu) const {
    std::string out;
    char field[96];
    for (int s = 0; s < kHostStageCount; ++s) {
        std::snprintf(field, sizeof field, " host_%s_ms=%.4f", host_stage_name(HostStage(s)),
                      host_mean_ms(HostStage(s)));
        out += field;
    }
    std::snprintf(field, sizeof field, " gpu_cuda_steps_ms=%.4f",
                  gpu.cuda_frames > 0 ? gpu.cuda_step_ms / double(gpu.cuda_frames) : 0.0);
    out += field;
    std::snprintf(field, sizeof field, " gpu_cuda_sprites_ms=%.4f",
                  gpu.cuda_sprite_frames > 0 ? gpu.cuda_sprites_ms / double(gpu.cuda_sprite_frames) : 0.0);
    out += field;
    for (int s = 0; s < render::kGpuStageCount; ++s) {
        std::snprintf(field, sizeof field, " gpu_%s_ms=%.4f", render::gpu_stage_name(render::GpuStage(s)),
                      gpu.gl_frames > 0 ? gpu.gl_ms[std::size_t(s)] / double(gpu.gl_frames) : 0.0);
        out += field;
    }
    return out;
}

}  // namespace nbody::app
