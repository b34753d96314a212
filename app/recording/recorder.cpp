#include "recorder.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <stdexcept>

#include "nbody/render/frame_capture.hpp"
#include "nbody/sim/atomic_file.hpp"
#include "recorder_ffmpeg.hpp"

namespace nbody::app {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string frame_file_name(long long index) {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%06lld.png", index);
    return name;
}

namespace {

// Frame files already in `folder`, by index (frame_NNNNNN.png; more digits past 999999).
std::vector<std::pair<long long, fs::path>> existing_frames(const fs::path& folder) {
    static const std::regex pattern(R"(frame_(\d{6,})\.png)");
    std::vector<std::pair<long long, fs::path>> found;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::smatch m;
        if (std::regex_match(name, m, pattern)) found.emplace_back(std::stoll(m[1].str()), it->path());
    }
    std::sort(found.begin(), found.end());
    return found;
}

// What a run killed outright (SIGKILL, a crash) leaves is named `prefix` + its pid: a staging
// folder, an unfinished MP4. Those in `folder` whose pid is no longer running are removed.
void remove_leftovers_of_dead_runs(const fs::path& folder, const std::string& prefix) {
    std::error_code ec;
    for (fs::directory_iterator it(folder.empty() ? fs::path(".") : folder, ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() <= prefix.size() || name.rfind(prefix, 0) != 0) continue;
        char* rest = nullptr;
        const long pid = std::strtol(name.c_str() + prefix.size(), &rest, 10);
        if (*rest != '\0') continue;  // not ours: prefix + digits only
        std::error_code rm;
        if (pid > 0 && (pid == ::getpid() || (::kill(pid_t(pid), 0) != 0 && errno == ESRCH))) fs::remove_all(it->path(), rm);
    }
}

// Creates `folder` if needed and proves it can take a file; throws with the reason otherwise.
void prepare_folder(const fs::path& folder, const char* what) {
    std::error_code ec;
    if (folder.empty()) throw std::runtime_error(std::string("no ") + what + " given");
    if (!fs::exists(folder, ec)) {
        fs::create_directories(folder, ec);
        if (ec)
            throw std::runtime_error(std::string("cannot create the ") + what + " '" + folder.string() +
                                     "': " + ec.message());
    }
    if (!fs::is_directory(folder, ec))
        throw std::runtime_error(std::string("the ") + what + " '" + folder.string() + "' is not a folder");
    // Permissions alone do not say (root ignores them, a read-only mount does not): write a file.
    const fs::path probe = folder / ".nbody-write-test";
    try {
        write_file_atomically(probe.string(), [](std::ostream& out) { out << "nbody\n"; });
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("cannot write into the ") + what + " '" + folder.string() +
                                 "': " + e.what());
    }
    fs::remove(probe, ec);
}

}  // namespace

// --- the bounded queue ---------------------------------------------------------------------------

double Recorder::Queue::push(Job job, const std::atomic<bool>& abort) {
    std::unique_lock lock(mutex);
    double waited = 0;
    if (jobs.size() >= capacity && !closed && !abort) {
        const auto t = Clock::now();
        not_full.wait(lock, [&] { return jobs.size() < capacity || closed || abort; });
        waited = std::chrono::duration<double>(Clock::now() - t).count();
    }
    if (closed || abort) return waited;
    jobs.push_back(std::move(job));
    lock.unlock();
    not_empty.notify_one();
    return waited;
}

std::optional<Recorder::Job> Recorder::Queue::pop() {
    std::unique_lock lock(mutex);
    not_empty.wait(lock, [&] { return !jobs.empty() || closed; });
    if (jobs.empty()) return std::nullopt;
    Job job = std::move(jobs.front());
    jobs.pop_front();
    lock.unlock();
    not_full.notify_one();
    return job;
}

void Recorder::Queue::close() {
    {
        std::lock_guard lock(mutex);
        closed = true;
    }
    not_empty.notify_all();
    not_full.notify_all();
}

std::size_t Recorder::Queue::size() const {
    std::lock_guard lock(mutex);
    return jobs.size();
}

// --- the recorder ----------------------------------------------------------------------------

Recorder::Recorder(RecordingSettings settings, int width, int height)
    : settings_(std::move(settings)), width_(width), height_(height), started_(Clock::now()) {
    if (width < 1 || height < 1)
        throw std::runtime_error("cannot record frames of " + std::to_string(width) + "x" +
                                 std::to_string(height));
    if (settings_.steps_per_frame < 1)
        throw std::runtime_error("steps per recorded frame must be at least 1 (got " +
                                 std::to_string(settings_.steps_per_frame) + ")");
    render::PixelFormat format = render::PixelFormat::Rgba;
    if (settings_.readback) {
        format = *settings_.readback;
    } else if (const char* env = std::getenv("NBODY_READBACK"); env && *env) {
        const std::string v = env;
        if (v != "rgb" && v != "rgba")
            throw std::runtime_error("NBODY_READBACK='" + v + "'; supported: rgb, rgba");
        format = v == "rgb" ? render::PixelFormat::Rgb : render::PixelFormat::Rgba;
    }

    prepare_folder(settings_.folder, "output folder");
    frames_folder_ = settings_.folder;
    {
        const auto found = existing_frames(settings_.folder);
        if (!found.empty() && settings_.overwrite) {
            // Replacing a recording: the new frames go to a folder beside it, swapped in at the end,
            // so that a kill at any moment leaves the old sequence or the new one, never a mix.
            const fs::path folder = settings_.folder.has_filename() ? settings_.folder : settings_.folder.parent_path();
            frames_folder_ = folder.parent_path() /
                             ("." + folder.filename().string() + ".recording-" + std::to_string(::getpid()));
            // Staging folders of killed runs (their pid gone) are removed: the recording they held
            // never replaced anything.
            remove_leftovers_of_dead_runs(folder.parent_path(), "." + folder.filename().string() + ".recording-");
            prepare_folder(frames_folder_, "staging folder");
            staged_ = true;
        }
        if (!found.empty() && !settings_.overwrite)
            throw std::runtime_error(
                "'" + found.front().second.string() + "' already exists (" + std::to_string(found.size()) +
                " frame file" + (found.size() > 1 ? "s" : "") +
                " of an earlier recording in that folder); record into another folder, or "
                "allow overwriting (--overwrite)");
    }

    if (settings_.mp4) {
        const fs::path movie = *settings_.mp4;
        // The unfinished MP4 of a run killed outright (SIGKILL, a crash) is no use to anyone.
        remove_leftovers_of_dead_runs(movie.parent_path(), movie.filename().string() + ".tmp");
        std::error_code ec;
        if (fs::exists(movie, ec) && !settings_.overwrite)
            throw std::runtime_error(
                "'" + movie.string() +
                "' already exists; choose another MP4 name, or allow overwriting (--overwrite)");
        if (fs::is_directory(movie, ec))
            throw std::runtime_error("the MP4 name '" + movie.string() + "' is a folder");
        const auto ffmpeg = find_ffmpeg();
        if (!ffmpeg) {
            mp4_note_ =
                "ffmpeg was not found on PATH, so no MP4 will be made; the PNG frames are still written "
                "(install ffmpeg, or encode them later: ffmpeg -framerate " +
                std::to_string(settings_.mp4_fps) + " -i '" + (settings_.folder / "frame_%06d.png").string() +
                "' -c:v libx264 -pix_fmt yuv420p movie.mp4)";
        } else {
            prepare_folder(movie.has_parent_path() ? movie.parent_path() : fs::path("."), "MP4's folder");
            const Mp4Size even = mp4_size(width, height);
            if (even.cropped)
                mp4_note_ = "the MP4 is " + std::to_string(even.width) + "x" + std::to_string(even.height) +
                            ": H.264 with yuv420p colour needs even sizes, so its last " +
                            (even.width != width && even.height != height ? "column and row are"
                             : even.width != width                        ? "column is"
                                                                          : "row is") +
                            " cropped (the PNGs keep " + std::to_string(width) + "x" +
                            std::to_string(height) + ")";
            ffmpeg_ = std::make_unique<FfmpegPipe>(*ffmpeg, movie.string(), width, height, channels(format),
                                                   settings_.mp4_fps);
        }
    }

    int threads = settings_.encoder_threads;
    if (threads <= 0) threads = std::max(1, int(std::thread::hardware_concurrency()) - 1);
    threads = std::clamp(threads, 1, 64);
    // Readback buffers: enough for every encoder to hold one and have the next waiting, the MP4
    // queue, and the frames still being copied by the GPU; a memory budget keeps 4K frames from
    // pinning gigabytes. They are what bounds the frames in flight: when all are with the
    // encoders, capture() waits.
    const std::size_t frame_bytes = std::size_t(width) * std::size_t(height) * std::size_t(channels(format));
    const std::size_t budget =
        std::max<std::size_t>(3, (std::size_t(512) << 20) / std::max<std::size_t>(frame_bytes, 1));
    const std::size_t buffers =
        std::clamp<std::size_t>(std::size_t(threads) * 2 + 3 + (ffmpeg_ ? 4 : 0), 3, budget);
    reader_ = std::make_unique<render::AsyncFrameReader>(int(buffers), format);
    png_queue_.capacity = buffers;
    mp4_queue_.capacity = std::min<std::size_t>(4, buffers);
    // Test hook: a slower encoder, to show that the frame loop then waits and drops nothing.
    if (const char* env = std::getenv("NBODY_TEST_ENCODER_DELAY_MS"); env && *env)
        encoder_delay_ = std::chrono::milliseconds(std::max(0, std::atoi(env)));
    try {
        for (int i = 0; i < threads; ++i) png_threads_.emplace_back([this] { png_worker(); });
        if (ffmpeg_) mp4_thread_ = std::thread([this] { mp4_worker(); });
    } catch (...) {
        stop_workers();  // a joinable thread must not be destroyed
        throw;
    }
}

Recorder::~Recorder() {
    if (finished_) return;
    try {
        finish();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "nbody: recording: %s\n", e.what());
    }
    stop_workers();  // in case finish() threw before joining them
}

void Recorder::stop_workers() {
    png_queue_.close();
    mp4_queue_.close();
    for (auto& t : png_threads_)
        if (t.joinable()) t.join();
    if (mp4_thread_.joinable()) mp4_thread_.join();
}

void Recorder::capture(GLuint framebuffer, int width, int height) {
    if (failed() || finished_) return;
    if (width != width_ || height != height_)
        throw std::runtime_error("the frame size changed from " + std::to_string(width_) + "x" +
                                 std::to_string(height_) + " to " + std::to_string(width) + "x" +
                                 std::to_string(height) + " during the recording");
    const double waited_before = wait_seconds_;
    // Frames whose copy has finished go to the encoders now; the rest stay in flight.
    while (auto frame = reader_->take(false)) hand_over(std::move(*frame));
    // No free buffer: finish the oldest read if one is still in flight, else every buffer is with
    // the encoders and this frame waits for one to come back. Nothing is dropped.
    while (!failed() && !reader_->can_submit()) {
        if (auto frame = reader_->take(true)) {
            hand_over(std::move(*frame));
            continue;
        }
        const auto t = Clock::now();
        reader_->wait_for_release();
        wait_seconds_ += std::chrono::duration<double>(Clock::now() - t).count();
    }
    if (failed()) return;
    reader_->submit(framebuffer, width, height, next_index_++);
    const double waited = wait_seconds_ - waited_before;
    waited_last_ = waited > 0;
    wait_ms_recent_ += 0.1 * (1e3 * waited - wait_ms_recent_);
}

bool Recorder::wanted(long long index) const {
    std::lock_guard lock(error_mutex_);
    return first_failed_ < 0 || index < first_failed_;
}

void Recorder::hand_over(render::ReadbackFrame frame) {
    // After a failure, the frames before the failed one are still written: they complete the
    // sequence. The encoders keep taking jobs until closed, so waiting for room cannot hang.
    if (!wanted(frame.tag)) return;
    Job job{std::move(frame)};
    if (ffmpeg_ && !mp4_failed_) wait_seconds_ += mp4_queue_.push(job, mp4_failed_);
    static const std::atomic<bool> never{false};
    wait_seconds_ += png_queue_.push(std::move(job), never);
}

void Recorder::png_worker() {
    while (auto job = png_queue_.pop()) {
        {
            // After a failure only frames before it are still wanted: they complete the sequence.
            std::lock_guard lock(error_mutex_);
            if (first_failed_ >= 0 && job->frame.tag > first_failed_) continue;
        }
        const long long index = job->frame.tag;
        const fs::path path = frames_folder_ / frame_file_name(index);
        try {
            const std::vector<std::uint8_t> png = render::encode_png_pixels(
                job->frame.pixels.get(), channels(job->frame.format), width_, height_,
                /*bottom_up=*/true, /*fast=*/true);
            if (encoder_delay_.count() > 0) std::this_thread::sleep_for(encoder_delay_);
            job.reset();  // the readback buffer goes back before the (slower) file write
            write_file_atomically(path.string(), [&](std::ostream& out) {
                out.write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
            });
            std::lock_guard lock(error_mutex_);
            if (written_flags_.size() <= std::size_t(index)) written_flags_.resize(std::size_t(index) + 1);
            written_flags_[std::size_t(index)] = true;
            ++written_;
        } catch (const std::exception& e) {
            fail(index, e.what());
        }
    }
}

void Recorder::mp4_worker() {
    while (auto job = mp4_queue_.pop()) {
        if (mp4_failed_) continue;  // drain: the GL thread must never block on a dead movie
        try {
            ffmpeg_->write(job->frame.pixels.get(), job->frame.bytes());
        } catch (const std::exception& e) {
            {
                std::lock_guard lock(error_mutex_);
                mp4_error_ = e.what();
            }
            std::lock_guard queue_lock(mp4_queue_.mutex);
            mp4_failed_ = true;
            mp4_queue_.not_full.notify_all();
        }
    }
}

void Recorder::fail(long long index, const std::string& message) {
    std::lock_guard lock(error_mutex_);
    if (first_failed_ < 0 || index < first_failed_) {
        first_failed_ = index;
        error_ = "frame " + std::to_string(index) + " could not be written: " + message;
    }
    failed_ = true;
}

std::string Recorder::error() const {
    std::lock_guard lock(error_mutex_);
    return error_;
}

RecorderStatus Recorder::status() const {
    RecorderStatus s;
    s.captured = next_index_;
    s.written = written_.load();
    s.queued = reader_->pending() + reader_->out();
    s.capacity = reader_->size();
    s.waited_last_frame = waited_last_;
    s.wait_ms_recent = wait_ms_recent_;
    s.error = error();
    if (s.error.empty()) {
        std::lock_guard lock(error_mutex_);
        if (!mp4_error_.empty()) s.error = "MP4: " + mp4_error_;
    }
    return s;
}

long long Recorder::swap_in_staged(long long frames_written) {
    const fs::path target = settings_.folder;
    long long stale = 0;
    for (const auto& [index, path] : existing_frames(target)) stale += index >= frames_written;
    // renameat2(RENAME_EXCHANGE) swaps the two folders in one step; where the file system lacks
    // it, two renames (a kill between them leaves both folders beside each other, still unmixed).
    if (::renameat2(AT_FDCWD, frames_folder_.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
        const fs::path aside = frames_folder_.string() + ".old";
        std::error_code ec;
        fs::rename(target, aside, ec);
        if (!ec) fs::rename(frames_folder_, target, ec);
        if (ec) throw std::runtime_error("cannot move the new recording into " + target.string() + ": " + ec.message());
        fs::rename(aside, frames_folder_, ec);
    }
    // The old recording is now in frames_folder_: files in it that are not frames (the user's)
    // move to the new one; the old frames go.
    std::error_code ec;
    for (fs::directory_iterator it(frames_folder_, ec), end; !ec && it != end; it.increment(ec)) {
        static const std::regex frame(R"(frame_\d{6,}\.png)");
        const std::string name = it->path().filename().string();
        std::error_code move_ec;
        if (!std::regex_match(name, frame) && !fs::exists(target / name, move_ec))
            fs::rename(it->path(), target / name, move_ec);
    }
    return stale;
}

RecordingSummary Recorder::finish() {
    if (summary_) return *summary_;
    finished_ = true;
    RecordingSummary summary;
    summary.folder = settings_.folder;
    summary.mp4_note = mp4_note_;
    // Every read still in flight (those after a failed frame are dropped), then the workers.
    try {
        while (auto frame = reader_->take(true)) hand_over(std::move(*frame));
    } catch (const std::exception& e) {
        fail(next_index_, std::string("reading back the last frames failed: ") + e.what());
    }
    stop_workers();

    {
        std::lock_guard lock(error_mutex_);
        summary.error = error_;
        summary.mp4_error = mp4_error_;
        // No gap: frames written after the first failed one come out again.
        if (first_failed_ >= 0) {
            std::error_code ec;
            for (std::size_t i = std::size_t(first_failed_); i < written_flags_.size(); ++i)
                if (written_flags_[i] &&
                    fs::remove(frames_folder_ / frame_file_name(static_cast<long long>(i)), ec))
                    --written_;
        }
    }
    summary.frames_written = written_.load();
    if (ffmpeg_) {
        summary.mp4_frames = ffmpeg_->frames();
        if (summary.mp4_error.empty()) {
            try {
                summary.mp4 = ffmpeg_->finish();
            } catch (const std::exception& e) {
                summary.mp4_error = e.what();
            }
        }
        ffmpeg_.reset();  // a failed movie: kills ffmpeg if needed and removes the temporary file
    }
    // --overwrite of an earlier recording: swap the new sequence in (or, if a frame failed, keep
    // the old one and drop the new).
    if (staged_) {
        try {
            if (summary.error.empty())
                summary.stale_removed = swap_in_staged(summary.frames_written);
            else
                summary.error += "; the earlier recording in " + settings_.folder.string() + " was kept";
        } catch (const std::exception& e) {
            summary.error = e.what();
        }
        std::error_code ec;
        fs::remove_all(frames_folder_, ec);
    }
    summary.seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    summary.wait_seconds = wait_seconds_;
    summary_ = summary;
    return summary;
}

}  // namespace nbody::app
