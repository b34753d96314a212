#include "recorder_ffmpeg.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace nbody::app {

namespace fs = std::filesystem;

namespace {

bool executable_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::string errno_text(int e) { return std::strerror(e); }

std::uint64_t big_endian(const unsigned char* p, int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}

// The top-level boxes of an ISO media file: size (u32, 1 = a u64 follows, 0 = to the end) + type.
std::string check_boxes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return "cannot open it";
    std::error_code ec;
    const std::uint64_t size = fs::file_size(path, ec);
    if (ec) return "cannot read its size";
    bool ftyp = false, moov = false, mdat = false;
    std::uint64_t at = 0;
    while (at < size) {
        unsigned char h[16];
        in.seekg(std::streamoff(at));
        if (size - at < 8 || !in.read(reinterpret_cast<char*>(h), 8)) return "it ends inside a box header at byte " + std::to_string(at);
        std::uint64_t box = big_endian(h, 4);
        const std::string type(reinterpret_cast<const char*>(h + 4), 4);
        if (box == 1) {
            if (size - at < 16 || !in.read(reinterpret_cast<char*>(h + 8), 8)) return "it ends inside a box header";
            box = big_endian(h + 8, 8);
        } else if (box == 0) {
            box = size - at;
        }
        if (box < 8 || box > size - at)
            return "box '" + type + "' at byte " + std::to_string(at) + " claims " + std::to_string(box) +
                   " bytes, past the end of the file (" + std::to_string(size) + " bytes): it was cut short";
        ftyp |= type == "ftyp";
        moov |= type == "moov";
        mdat |= type == "mdat";
        at += box;
    }
    if (!ftyp) return "it has no 'ftyp' box (not an MP4)";
    if (!mdat) return "it has no 'mdat' box (no video data)";
    if (!moov) return "it has no 'moov' box (the index ffmpeg writes last is missing: a full disk?); it cannot be played";
    return "";
}

std::optional<std::string> find_ffprobe(const std::string& ffmpeg) {
    if (const char* env = std::getenv("NBODY_FFPROBE")) {
        if (!*env || !executable_file(env)) return std::nullopt;
        return std::string(env);
    }
    const std::string beside = (fs::path(ffmpeg).parent_path() / "ffprobe").string();
    if (executable_file(beside)) return beside;
    const char* path = std::getenv("PATH");
    if (!path) return std::nullopt;
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/ffprobe";
        if (executable_file(candidate)) return candidate;
    }
    return std::nullopt;
}

// Runs `args` with stdout captured (stderr to /dev/null); returns the output, nothing on failure.
std::optional<std::string> capture_output(std::vector<std::string> args) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    std::string out;
    if (rc == 0) {
        char buf[4096];
        for (;;) {
            const ssize_t n = ::read(fds[0], buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            out.append(buf, std::size_t(n));
        }
    }
    ::close(fds[0]);
    if (rc != 0) return std::nullopt;
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
    return out;
}

}  // namespace

std::string verify_mp4(const std::string& path, long long expected_frames, const std::string& ffmpeg,
                       std::string* checked_with) {
    if (checked_with) *checked_with = "boxes";
    if (std::string problem = check_boxes(path); !problem.empty()) return problem;
    const auto ffprobe = find_ffprobe(ffmpeg);
    if (!ffprobe) return "";
    if (checked_with) *checked_with = "boxes + ffprobe";
    const auto out = capture_output({*ffprobe, "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                                     "stream=nb_read_packets", "-of", "csv=p=0", path});
    if (!out) return "ffprobe cannot read it";
    long long frames = -1;
    try {
        frames = std::stoll(*out);
    } catch (const std::exception&) {
        return "ffprobe reports no frame count ('" + out->substr(0, 80) + "')";
    }
    if (frames != expected_frames)
        return "it holds " + std::to_string(frames) + " frames, not the " + std::to_string(expected_frames) + " sent";
    return "";
}

std::optional<std::string> find_ffmpeg() {
    if (const char* env = std::getenv("NBODY_FFMPEG")) {
        if (!*env || !executable_file(env)) return std::nullopt;
        return std::string(env);
    }
    const char* path = std::getenv("PATH");
    if (!path) return std::nullopt;
    std::istringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/ffmpeg";
        if (executable_file(candidate)) return candidate;
    }
    return std::nullopt;
}

Mp4Size mp4_size(int width, int height) {
    Mp4Size s{width - width % 2, height - height % 2, false};
    s.cropped = s.width != width || s.height != height;
    return s;
}

FfmpegPipe::FfmpegPipe(const std::string& ffmpeg, const std::string& output, int width, int height,
                       int channels, int fps)
    : ffmpeg_(ffmpeg), output_(output), frame_bytes_(std::size_t(width) * std::size_t(height) * std::size_t(channels)) {
    if (channels != 3 && channels != 4)
        throw std::invalid_argument("FfmpegPipe: " + std::to_string(channels) + " channels; supported: 3, 4");
    if (width < 2 || height < 2) throw std::runtime_error("an MP4 needs frames of at least 2x2 pixels");
    if (fps < 1) throw std::runtime_error("the MP4 frame rate must be at least 1");
    temporary_ = output + ".tmp" + std::to_string(::getpid());
    pending_ = std::make_unique<PendingTemporary>(temporary_);

    // ffmpeg's stderr goes to a file: read back for the message when something fails, and a
    // pipe nobody drains could fill up and stall ffmpeg.
    std::string log_template = (fs::temp_directory_path() / "nbody-ffmpeg-XXXXXX").string();
    const int log_fd = ::mkostemp(log_template.data(), O_CLOEXEC);
    if (log_fd < 0) throw std::runtime_error("cannot create a log file for ffmpeg: " + errno_text(errno));
    log_path_ = log_template;

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        const int e = errno;
        ::close(log_fd);
        fs::remove(log_path_);
        throw std::runtime_error("cannot create a pipe to ffmpeg: " + errno_text(e));
    }
#ifdef F_SETPIPE_SZ
    // A frame is megabytes; a bigger pipe means fewer round trips between the two processes.
    ::fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);  // best effort: the default size works too
#endif

    const Mp4Size even = mp4_size(width, height);
    // GL delivers the bottom row first; ffmpeg's vflip puts it right, and crop drops the odd
    // column or row yuv420p cannot hold.
    std::string filters = "vflip";
    if (even.cropped)
        filters += ",crop=" + std::to_string(even.width) + ":" + std::to_string(even.height) + ":0:0";
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    const std::string rate = std::to_string(fps);
    // clang-format off
    std::vector<std::string> args{ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
                                  "-f", "rawvideo", "-pix_fmt", channels == 3 ? "rgb24" : "rgba",
                                  "-s", size, "-r", rate, "-i", "pipe:0",
                                  "-vf", filters, "-c:v", "libx264", "-pix_fmt", "yuv420p",
                                  "-f", "mp4", temporary_};
    // clang-format on
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_adddup2(&actions, fds[0], 0);
    posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    // Its own process group: Ctrl-C in the terminal goes to the simulator, which then ends the
    // movie properly, instead of also reaching ffmpeg and cutting it short mid-drain.
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t defaults, none;
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGXFSZ}) sigaddset(&defaults, sig);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, ffmpeg.c_str(), &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[0]);
    ::close(log_fd);
    if (rc != 0) {
        ::close(fds[1]);
        fs::remove(log_path_);
        throw std::runtime_error("cannot start " + ffmpeg + ": " + errno_text(rc));
    }
    pid_ = pid;
    fd_ = fds[1];
}

FfmpegPipe::~FfmpegPipe() { abandon(); }

void FfmpegPipe::abandon() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
    }
    std::error_code ec;
    if (!temporary_.empty()) fs::remove(temporary_, ec);
    if (!log_path_.empty()) fs::remove(log_path_, ec);
    log_path_.clear();
}

std::string FfmpegPipe::log_tail() const {
    std::ifstream in(log_path_);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    if (text.size() > 600) text = "..." + text.substr(text.size() - 600);
    return text.empty() ? "(ffmpeg printed nothing)" : text;
}

void FfmpegPipe::write(const std::uint8_t* rgb, std::size_t bytes) {
    if (fd_ < 0) throw std::logic_error("FfmpegPipe::write after finish");
    if (bytes != frame_bytes_)
        throw std::invalid_argument("FfmpegPipe::write: " + std::to_string(bytes) + " bytes for a frame of " +
                                    std::to_string(frame_bytes_));
    std::size_t done = 0;
    while (done < bytes) {
        const ssize_t n = ::write(fd_, rgb + done, bytes - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int e = errno;
            // EPIPE: ffmpeg exited (SIGPIPE is ignored while recording); its log says why.
            throw std::runtime_error("ffmpeg stopped taking frames after " + std::to_string(frames_) + " (" +
                                     errno_text(e) + "): " + log_tail());
        }
        done += std::size_t(n);
    }
    ++frames_;
}

std::string FfmpegPipe::finish() {
    if (pid_ <= 0) throw std::logic_error("FfmpegPipe::finish called twice");
    ::close(fd_);  // end of input: ffmpeg flushes the encoder and writes the index
    fd_ = -1;
    int status = 0;
    pid_t r;
    while ((r = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    std::error_code ec;
    if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        const std::string how = r < 0 ? "could not be waited for"
                                : WIFSIGNALED(status)
                                    ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                    : "failed (exit " + std::to_string(WEXITSTATUS(status)) + ")";
        const std::string message = "ffmpeg " + how + ": " + log_tail();
        fs::remove(temporary_, ec);
        fs::remove(log_path_, ec);
        log_path_.clear();
        throw std::runtime_error(message);
    }
    // Exit 0 is not enough: ffmpeg reports a failed trailer write (a full disk) and still exits
    // 0. With -loglevel error anything it printed is an error; the file itself is checked too.
    std::string problem;
    {
        std::ifstream log(log_path_);
        const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
        if (text.find_first_not_of(" \r\n") != std::string::npos) problem = "ffmpeg reported errors: " + log_tail();
    }
    if (problem.empty()) {
        const std::string bad = verify_mp4(temporary_, frames_, ffmpeg_);
        if (!bad.empty()) problem = "the MP4 ffmpeg wrote is damaged: " + bad;
    }
    if (!problem.empty()) {
        fs::remove(temporary_, ec);
        fs::remove(log_path_, ec);
        log_path_.clear();
        throw std::runtime_error(problem + " (" + output_ + " was not written)");
    }
    fs::rename(temporary_, output_, ec);
    if (ec) {
        const std::string message = "cannot rename " + temporary_ + " to " + output_ + ": " + ec.message();
        fs::remove(temporary_, ec);
        fs::remove(log_path_, ec);
        log_path_.clear();
        throw std::runtime_error(message);
    }
    fs::remove(log_path_, ec);
    log_path_.clear();
    temporary_.clear();
    return output_;
}

}  // namespace nbody::app
