#pragma once
// Display options shared by `view` and `record` (trails), and `view`'s selection options.

#include <string>
#include <utility>

#include "commands.hpp"
#include "viewer_options.hpp"

namespace nbody::app {

// --trails N on `cmd`, into options.trails.
void add_trail_option(CLI::App& cmd, ViewOptions& options);
// --colour NAME on `cmd`, into `colour` (parse_colour_option reads it).
void add_colour_option(CLI::App& cmd, std::string& colour);
// --sprites auto|points|compute|cuda on `cmd`, into options.sprites.
void add_sprites_option(CLI::App& cmd, ViewOptions& options);
// --walk-room none|block|slices:N on `cmd`, into options.walk_room.
void add_walk_room_option(CLI::App& cmd, ViewOptions& options);
// --point-size, --exposure and --glow on `cmd`, into `options` (none given: chosen from N).
void add_looks_options(CLI::App& cmd, ViewOptions& options);
// --annotate-size PX on `cmd`, into `size` (0 when not given: 1/40 of the frame's height).
void add_annotate_size_option(CLI::App& cmd, float& size);
// "X,Y" (image pixels from the top-left corner) -> {X, Y}; throws CLI::ValidationError naming `option`.
std::pair<float, float> parse_pixel_option(const std::string& text, const std::string& option);
// "path:FILE" -> the camera path read from FILE; throws CLI::ValidationError naming --camera,
// the file and the line when the file is bad.
render::CameraPath parse_camera_path_option(const std::string& text);
// --camera's text (fixed, orbit:DEG_PER_FRAME or path:FILE) into `options`; throws
// CLI::ValidationError naming --camera and what is supported.
void apply_camera_option(const std::string& text, ViewOptions& options);

}  // namespace nbody::app
