#pragma once
// Every output of every command is checked before any work starts, so that a long run is never
// thrown away at the end because its result cannot be written. One rule for all commands:
//   - the parent folder exists or is created now; it must take a new file (a probe file is
//     written and removed: permissions alone do not say, root ignores them);
//   - the path is not a folder (for a file output) / not a file (for a folder output);
//   - an existing file of another kind (a scene file given as --screenshot, a PNG as --out
//     o.csv), or one of the command's inputs, is replaced only with --overwrite;
//   - where the size of the output is known, the free space must hold it.
// An existing file of the same kind (the result of an earlier run) is replaced without asking:
// writes are atomic, so the old file survives any failure.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace nbody::app {

// What a command writes to a path; decides which existing files count as "the same kind".
enum class OutputKind { Csv, Tipsy, Snapshot, Png, Mp4, Json, Text, Folder };

struct OutputRequest {
    std::string option;           // "--out", "--screenshot", ... for messages
    std::string path;             // empty: the option was not given (skipped)
    OutputKind kind;
    std::uint64_t expected_bytes = 0;  // 0: unknown; else the free space must hold it
};

// The kind of particle file `path` names by extension (.csv, .tipsy/.std/.bin, .nbsnap); throws
// std::runtime_error listing the supported extensions otherwise, and std::invalid_argument
// naming `option` when the path is a folder.
OutputKind particle_output_kind(const std::string& path, const std::string& option = "--out");

// Checks the outputs as described above against the command's `inputs` (paths; empty ones are
// skipped). Throws std::invalid_argument naming the option, the path and the problem. Creates
// missing parent folders (and folder outputs).
void check_outputs(const std::vector<OutputRequest>& outputs, const std::vector<std::string>& inputs,
                   bool overwrite);

// The same --overwrite flag, with the same help, in every command that writes files.
CLI::Option* add_overwrite_flag(CLI::App& cmd, bool& overwrite);

// What an existing file looks like (for the messages and the same-kind rule): "PNG image",
// "nbody snapshot", "MP4 video", "JSON", "TIPSY", "CSV", "text", "binary data", "empty".
std::string describe_existing_file(const std::string& path);

}  // namespace nbody::app
