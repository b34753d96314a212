// Recording from the viewer: starting and stopping a take, capturing frames, and what the
// Recording panel and the REC indicator show.

#include <ctime>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "recorder_ffmpeg.hpp"
#include "viewer.hpp"

namespace nbody::app {

namespace {

std::string describe_summary(const RecordingSummary& r) {
    std::ostringstream m;
    m << r.frames_written << " frame" << (r.frames_written == 1 ? "" : "s") << " written to " << r.folder.string();
    if (!r.mp4.empty()) m << "; MP4 " << r.mp4;
    if (r.stale_removed > 0) m << "; " << r.stale_removed << " frames of an older recording removed";
    if (!r.error.empty()) m << ". Recording stopped: " << r.error;
    if (!r.mp4_error.empty()) m << ". No MP4: " << r.mp4_error;
    return m.str();
}

}  // namespace

std::string default_recording_folder() {
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    const std::string base = std::string("nbody-frames-") + stamp;
    std::string name = base;
    std::error_code ec;
    for (int k = 2; std::filesystem::exists(name, ec) || std::filesystem::exists(name + ".mp4", ec); ++k)
        name = base + "-" + std::to_string(k);
    return name;
}

void announce_recording(const RecordingSettings& s, long long frames, int width, int height,
                        const std::string& spacing) {
    const Mp4Size even = mp4_size(width, height);
    std::cerr << "nbody: recording " << frames << " frames of " << width << "x" << height << " into "
              << s.folder.string() << ", "
              << (spacing.empty() ? std::to_string(s.steps_per_frame) + " steps per frame" : spacing)
              << (s.mp4 && find_ffmpeg() ? ", MP4 " + *s.mp4 + " (" + std::to_string(even.width) + "x" +
                                               std::to_string(even.height) + ")"
                                         : std::string())
              << "\n";
}

void Viewer::start_recording(const RecordingSettings& settings, int width, int height) {
    recorder_ = std::make_unique<Recorder>(settings, width, height);
    first_recorded_frame_ = true;
    recording_view_.last_result.clear();
    if (!recorder_->mp4_note().empty()) std::cerr << "nbody: " << recorder_->mp4_note() << "\n";
}

RecordingSummary Viewer::stop_recording() {
    const RecordingSummary r = recorder_->finish();
    recorder_.reset();
    recording_view_.last_result = describe_summary(r);
    recording_view_.last_result_is_error = !r.error.empty() || !r.mp4_error.empty();
    recording_failed_ |= recording_view_.last_result_is_error;
    if (!record_run_) {
        say(recording_view_.last_result, recording_view_.last_result_is_error);  // record prints its own
        // The next take gets a folder of its own (and its own MP4 name) unless the user picks one.
        if (params_.recording.folder == r.folder.string()) {
            params_.recording.folder = default_recording_folder();
            params_.recording.mp4_file.clear();
        }
    }
    return r;
}

void Viewer::toggle_recording(const render::DrawTarget& target) {
    if (recorder_) {
        stop_recording();
        return;
    }
    const RecordingParams& r = params_.recording;
    RecordingSettings settings;
    settings.folder = r.folder;
    settings.steps_per_frame = r.steps_per_frame;
    settings.include_ui = r.include_ui;
    settings.overwrite = r.overwrite;
    if (r.mp4) settings.mp4 = r.mp4_file.empty() ? r.folder + ".mp4" : r.mp4_file;
    try {
        start_recording(settings, target.width, target.height);
        say("recording into " + r.folder, false);
    } catch (const std::exception& e) {
        // The recorder speaks to the command line; in the window the switch is a checkbox.
        std::string why = e.what();
        if (const auto at = why.find("(--overwrite)"); at != std::string::npos)
            why.replace(at, 13, "(tick Overwrite)");
        recording_view_.last_result = "cannot record: " + why;
        recording_view_.last_result_is_error = true;
        recording_failed_ = true;
        say(recording_view_.last_result, true);
    }
}

void Viewer::capture(const render::DrawTarget& target, bool capture_frame) {
    if (!recorder_ || !capture_frame || recorder_->failed()) return;
    const HostStageTimer timing(profile_, HostStage::Capture);
    const render::GpuStageScope gpu(gpu_timing_, render::GpuStage::Readback);
    try {
        recorder_->capture(target.framebuffer, target.width, target.height);
    } catch (const std::exception& e) {
        if (record_run_) throw;
        say(std::string("recording stopped: ") + e.what(), true);
        stop_recording();
    }
}

void Viewer::update_recording_view(bool capture_frame) {
    recording_view_.active = recorder_ != nullptr;
    if (!recorder_) return;
    recording_view_.status = recorder_->status();
    // This frame is captured after the UI is built (so not counted yet); a paused frame shows the
    // last one captured.
    recording_view_.frame_on_screen = std::max<long long>(0, recording_view_.status.captured - (capture_frame ? 0 : 1));
    recording_view_.width = recorder_->width();
    recording_view_.height = recorder_->height();
    recording_view_.folder = recorder_->settings().folder.string();
    recording_view_.note = recorder_->mp4_note();
}

}  // namespace nbody::app
