#pragma once
// Recording a frame sequence: numbered PNGs (frame_000000.png, ...) in a folder and, when ffmpeg
// is installed, an H.264 MP4 made from the same frames.
//
// The GL thread only queues readbacks (AsyncFrameReader: pixel buffer objects and fences) and
// hands finished frames to worker threads that encode PNGs, and to one thread that feeds ffmpeg
// in order. Both queues are bounded: when encoding falls behind, capture() waits for room, so
// the simulation slows to the encoders' pace and no frame is ever dropped. Time spent waiting is
// counted, and the UI shows it.
//
// Nothing half-written: each PNG goes to a temporary name and is renamed when complete
// (write_file_atomically); the MP4 likewise (FfmpegPipe), after it has been checked. Replacing an
// earlier recording (overwrite) builds the new one in a folder beside it and swaps the two at the
// end, so a kill leaves the old sequence or the new one, never a mix. If a frame cannot be written (folder
// gone, disk full), recording stops, frames already written after the failed one are removed so
// the sequence has no gap, and the error says which frame and why.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "nbody/render/frame_reader.hpp"
#include "nbody/render/gl.hpp"

namespace nbody::app {

class FfmpegPipe;

struct RecordingSettings {
    std::filesystem::path folder;    // created if missing
    int steps_per_frame = 1;         // simulation steps between consecutive frames
    bool include_ui = false;         // the panels are in the frames
    bool overwrite = false;          // replace frames (and the MP4) from an earlier recording
    std::optional<std::string> mp4;  // also make this MP4 (needs ffmpeg)
    int mp4_fps = 30;
    int encoder_threads = 0;  // PNG encoders; 0: one per hardware thread but one
    // How frames are read back; none: $NBODY_READBACK (rgb | rgba), else RGBA (frame_reader.hpp).
    std::optional<render::PixelFormat> readback;
};

// "frame_000042.png".
std::string frame_file_name(long long index);

// What a finished (or failed) recording produced.
struct RecordingSummary {
    long long frames_written = 0;
    std::filesystem::path folder;
    std::string mp4;  // the movie written, empty if none
    long long mp4_frames = 0;
    std::string mp4_note;         // why none was made (no ffmpeg), or that it was cropped
    std::string mp4_error;        // ffmpeg failed (the PNGs are unaffected)
    std::string error;            // a frame could not be written: recording stopped there
    long long stale_removed = 0;  // --overwrite: frames of an older, longer recording removed
    double seconds = 0;           // from start to finish
    double wait_seconds = 0;      // the frame loop waited this long for the encoders
};

// A live view for the UI.
struct RecorderStatus {
    long long captured = 0;  // frames handed to capture()
    long long written = 0;   // PNGs renamed into place
    int queued = 0, capacity = 0;
    bool waited_last_frame = false;  // the last capture() had to wait for the encoders
    double wait_ms_recent = 0;       // smoothed wait per frame, ms
    std::string error;
};

class Recorder {
  public:
    // Prepares the folder and, if asked, ffmpeg, for frames of width x height. Throws
    // std::runtime_error with a message naming the problem: the folder cannot be created or
    // written, it already holds frames (and overwrite is off: the first one is named), the MP4
    // exists, ffmpeg failed to start. A missing ffmpeg is not an error: the PNGs are still
    // written and mp4_note() says why there is no movie.
    Recorder(RecordingSettings settings, int width, int height);
    // Abandons what has not been finished: waits for the workers, keeps the complete PNGs,
    // removes temporary files. Prefer finish(), which reports.
    ~Recorder();
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    // Queues the read of this frame (colour attachment 0 of `framebuffer`, width x height) and
    // passes frames already read to the encoders, waiting while every readback buffer is with
    // them. The size must stay the one given at construction (throws std::runtime_error
    // otherwise). Does nothing once failed().
    void capture(GLuint framebuffer, int width, int height);

    // Waits for every frame to be read, encoded and written, closes the MP4 and reports.
    // Call with the GL context current. Idempotent.
    RecordingSummary finish();

    // A frame could not be written (or ffmpeg failed); the message says which and why. The GL
    // thread should stop capturing and finish().
    bool failed() const { return failed_.load(); }
    std::string error() const;
    RecorderStatus status() const;

    const RecordingSettings& settings() const { return settings_; }
    int width() const { return width_; }
    int height() const { return height_; }
    long long captured() const { return next_index_; }
    // Set when an MP4 was asked for but will not be made, or will be cropped to even sizes.
    const std::string& mp4_note() const { return mp4_note_; }

  private:
    struct Job {
        render::ReadbackFrame frame;  // the mapped pixels, bottom row first; given back when dropped
    };
    // A bounded queue; push() blocks while full and returns the seconds it waited.
    struct Queue {
        std::deque<Job> jobs;
        std::size_t capacity = 2;
        bool closed = false;
        mutable std::mutex mutex;
        std::condition_variable not_empty, not_full;
        double push(Job job, const std::atomic<bool>& abort);  // drops the job if closed or aborted
        std::optional<Job> pop();
        void close();
        std::size_t size() const;
    };

    void hand_over(render::ReadbackFrame frame);  // to both queues
    bool wanted(long long index) const;           // not after a frame that failed
    void png_worker();
    void mp4_worker();
    void fail(long long index, const std::string& message);
    void stop_workers();
    // Swaps the staged recording into settings_.folder; returns the old frames beyond the new end.
    long long swap_in_staged(long long frames_written);

    RecordingSettings settings_;
    // Where the frames are written: settings_.folder, or a staging folder beside it when an earlier
    // recording is being replaced (--overwrite), swapped in by finish().
    std::filesystem::path frames_folder_;
    bool staged_ = false;
    int width_, height_;
    std::chrono::steady_clock::time_point started_;
    // Before the queues and threads: destroyed after them, once every frame has been given back.
    std::unique_ptr<render::AsyncFrameReader> reader_;
    long long next_index_ = 0;

    Queue png_queue_, mp4_queue_;
    std::vector<std::thread> png_threads_;
    std::thread mp4_thread_;
    std::unique_ptr<FfmpegPipe> ffmpeg_;
    std::string mp4_note_;

    std::atomic<bool> failed_{false};
    std::atomic<long long> written_{0};
    mutable std::mutex error_mutex_;
    std::string error_;            // first PNG failure (stops the recording)
    long long first_failed_ = -1;  // its frame index
    std::string mp4_error_;        // ffmpeg failure (the PNGs go on)
    std::atomic<bool> mp4_failed_{false};
    std::vector<bool> written_flags_;  // by frame index; under error_mutex_

    std::chrono::milliseconds encoder_delay_{0};  // NBODY_TEST_ENCODER_DELAY_MS (tests only)
    bool waited_last_ = false;
    double wait_seconds_ = 0, wait_ms_recent_ = 0;
    bool finished_ = false;
    std::optional<RecordingSummary> summary_;
};

}  // namespace nbody::app
