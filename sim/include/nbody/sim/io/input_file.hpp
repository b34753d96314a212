#pragma once
// The one way every reader opens its input (CSV, TIPSY, snapshot, scene TOML, camera path): only
// a regular file is read. A FIFO without a writer would block open() and read() for ever (and a
// blocked read ignores the signal handlers' flag), /dev/zero never ends, a folder or a socket is
// no file at all: each is refused at once with the path and what it is. open() itself uses
// O_NONBLOCK, so naming a FIFO cannot block before the check.

#include <cstdint>
#include <string>
#include <string_view>

namespace nbody::io {

// An open regular file (RAII: the descriptor is closed with the object).
class InputFile {
public:
    // Throws std::runtime_error "cannot open 'PATH' for reading (KIND file): No such file or directory",
    // "PATH: is a FIFO (named pipe), not a KIND file", "... is a folder ...", "... a character
    // device ...", "... a socket ...". `kind` names the format in messages ("CSV", "snapshot").
    InputFile(const std::string& path, std::string_view kind);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    std::uint64_t size() const { return size_; }  // at open
    const std::string& path() const { return path_; }
    // The whole file (refused, naming its size, beyond `max_bytes`).
    std::string read_all(std::uint64_t max_bytes = UINT64_MAX);
    // `n` bytes at `offset`; throws naming `what` when the file ends first.
    std::string read_at(std::uint64_t offset, std::uint64_t n, std::string_view what);

private:
    std::string path_, kind_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

// What a non-regular path is, for messages: "a FIFO (named pipe)", "a folder", "a character
// device", "a block device", "a socket"; empty for a regular file or a path that cannot be stat'ed.
std::string non_regular_kind(const std::string& path);

// InputFile(path, kind).read_all(): the common case.
std::string read_input_file(const std::string& path, std::string_view kind);

}  // namespace nbody::io
