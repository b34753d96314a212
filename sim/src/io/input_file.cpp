#include "nbody/sim/io/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nbody::io {
namespace {

std::string kind_of_mode(mode_t mode) {
    if (S_ISREG(mode)) return {};
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

}  // namespace

std::string non_regular_kind(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return {};
    return kind_of_mode(st.st_mode);
}

InputFile::InputFile(const std::string& path, std::string_view kind) : path_(path), kind_(kind) {
    // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer.
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
        const int err = errno;
        // A socket cannot be opened at all (ENXIO): say what it is rather than the errno's words.
        if (const std::string what = non_regular_kind(path); !what.empty())
            throw std::runtime_error(path + ": is " + what + ", not a " + kind_ + " file (only regular files are read)");
        throw std::runtime_error("cannot open '" + path + "' for reading (" + kind_ + " file): " + std::strerror(err));
    }
    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        const int err = errno;
        ::close(fd_);
        throw std::runtime_error(path + ": cannot read the " + kind_ + " file's status: " + std::strerror(err));
    }
    if (const std::string what = kind_of_mode(st.st_mode); !what.empty()) {
        ::close(fd_);
        throw std::runtime_error(path + ": is " + what + ", not a " + kind_ + " file (only regular files are read)");
    }
    size_ = std::uint64_t(st.st_size);
    // A regular file never blocks; reads go back to ordinary blocking semantics.
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

InputFile::~InputFile() {
    if (fd_ >= 0) ::close(fd_);
}

std::string InputFile::read_at(std::uint64_t offset, std::uint64_t n, std::string_view what) {
    if (offset > size_ || n > size_ - offset)
        throw std::runtime_error(path_ + ": truncated " + kind_ + " file: " + std::string(what) + " at byte offset " +
                                 std::to_string(offset) + " needs " + std::to_string(n) +
                                 " bytes, but the file ends at byte " + std::to_string(size_));
    std::string bytes(std::size_t(n), '\0');
    std::size_t done = 0;
    while (done < n) {
        const ssize_t got = ::pread(fd_, bytes.data() + done, n - done, off_t(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            const int err = errno;
            throw std::runtime_error(path_ + ": read error at byte offset " + std::to_string(offset + done) + ": " +
                                     std::strerror(err));
        }
        if (got == 0)
            throw std::runtime_error(path_ + ": the " + kind_ + " file became shorter while it was read (it ends at byte " +
                                     std::to_string(offset + done) + ")");
        done += std::size_t(got);
    }
    return bytes;
}

std::string InputFile::read_all(std::uint64_t max_bytes) {
    if (size_ > max_bytes)
        throw std::runtime_error(path_ + ": the " + kind_ + " file is " + std::to_string(size_) +
                                 " bytes; at most " + std::to_string(max_bytes) + " are read");
    return read_at(0, size_, "the file's contents");
}

std::string read_input_file(const std::string& path, std::string_view kind) {
    return InputFile(path, kind).read_all();
}

}  // namespace nbody::io
