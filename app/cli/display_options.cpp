#include "display_options.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <regex>
#include <stdexcept>

#include "nbody/render/trail_renderer.hpp"
#include "number_text.hpp"
#include "run_options.hpp"

namespace nbody::app {

void add_trail_option(CLI::App& cmd, ViewOptions& options) {
    cmd.add_option("--trails", options.trails,
                   "Draw each body's trail over the model time of N points two frames of playback apart (with few bodies "
                   "in up to 8 times as many points), sampled as the simulation steps, so a close encounter is a curve; "
                   "fading with age; 0: none "
                   "(default: the scene's `trails`, on for the figure-eight scenes). GPU memory: 16 bytes per body per "
                   "point")
        ->check(whole_number(0, render::kMaxTrailLength));
}

void add_colour_option(CLI::App& cmd, std::string& colour) {
    cmd.add_option("--colour", colour,
                   "Colour by galaxy | component | speed | plain | mass (default: galaxy, or component for a single "
                   "galaxy, or mass for a star cluster: each star's main-sequence colour, wider for heavier stars)");
}

void add_sprites_option(CLI::App& cmd, ViewOptions& options) {
    static const std::map<std::string, render::SpriteDrawing> names{{"auto", render::SpriteDrawing::Auto},
                                                                     {"points", render::SpriteDrawing::Points},
                                                                     {"compute", render::SpriteDrawing::Compute},
                                                                     {"cuda", render::SpriteDrawing::Cuda}};
    cmd.add_option_function<std::string>(
           "--sprites", [&options](const std::string& name) { options.sprites = names.at(name); },
           "How particles are drawn: points (GL point sprites) | compute (a compute pass adds their light into a "
           "few size layers that are blurred; the same picture at a fraction of the cost on GPUs with little "
           "raster hardware, such as the H100) | cuda (compute's light sums added by CUDA kernels in the "
           "simulation's context, beside its steps; needs --backend cuda with CUDA-GL interop) | auto (compute "
           "from 65,536 bodies on a GPU, cuda there when the cuda backend steps beside the frame loop through "
           "interop, points on a software renderer)")
        ->check(CLI::IsMember({"auto", "points", "compute", "cuda"}))
        ->type_name("auto|points|compute|cuda")
        ->default_str("auto");
}

void add_walk_room_option(CLI::App& cmd, ViewOptions& options) {
    cmd.add_option_function<std::string>(
           "--walk-room", [&options](const std::string& text) { options.walk_room = parse_walk_room(text); },
           "With --sprites cuda beside the steps (the simulation on its own thread) and --gravity tree: what"
           " the tree walk, which otherwise fills every SM for its whole length, leaves to the sprites' "
           "deposit. block: one resident walk block per SM fewer, so the deposit's blocks always find room "
           "(the walk runs with fewer warps: a fifth fewer on an H100) | slices:N (N 2 to 64): each walk "
           "queued as N launches over a share of its groups, the deposit's blocks scheduled between them (a "
           "frame may wait up to one slice) | none: the whole GPU to the walk. The deposit's stream has the "
           "highest priority in every case. Other drawings and steps in the frame loop leave the walk as it "
           "is. The same forces bit for bit")
        ->check([](const std::string& text) -> std::string {
            std::string why;
            try {
                (void)parse_walk_room(text);
            } catch (const std::invalid_argument& e) {
                why = e.what();
            }
            return why;
        })
        ->type_name("none|block|slices:N")
        ->default_str(walk_room_name(options.walk_room));
}

void add_looks_options(CLI::App& cmd, ViewOptions& options) {
    const auto from_n = [](const char* small, const char* above) {
        return std::string(" (default: chosen from N as the Rendering panel's Looks for N does: ") + small +
               " up to 65,536 bodies, " + above + " above; docs/VIEWER.md)";
    };
    cmd.add_option("--point-size", options.point_size,
                   "Sprite diameter in pixels of a 720-line frame (taller frames scale it)" + from_n("3", "thinner"))
        ->check(CLI::Range(0.5f, 24.0f));
    cmd.add_option("--exposure", options.exposure,
                   "Light of every sprite, a linear factor" + from_n("1", "more as the sprites get thinner"))
        ->check(CLI::Range(0.02f, 50.0f));
    cmd.add_option("--glow", options.glow,
                   "Strength of the wide halo round bright regions, 0: none" + from_n("1.5", "less"))
        ->check(CLI::Range(0.0f, 3.0f));
}

void add_annotate_size_option(CLI::App& cmd, float& size) {
    cmd.add_option("--annotate-size", size,
                   "Text height of the --annotate legend, scale bar and time in pixels (default: 1/40 of the frame's "
                   "height, 13 at least: 18 at 720p, 27 at 1080p, 54 at 4K)")
        ->check(CLI::Range(4.0f, 400.0f));
}

std::pair<float, float> parse_pixel_option(const std::string& text, const std::string& option) {
    std::smatch m;
    static const std::regex xy(R"(\s*(\d+(?:\.\d*)?)\s*,\s*(\d+(?:\.\d*)?)\s*)");
    if (!std::regex_match(text, m, xy) || m[1].length() > 7 || m[2].length() > 7)
        throw CLI::ValidationError(option, "expected X,Y in image pixels from the top-left corner, e.g. 640,360 (got '" +
                                               text.substr(0, 40) + "')");
    return {std::stof(m[1].str()), std::stof(m[2].str())};
}

namespace {
// "orbit:0.5" -> 0.5 degrees per frame; "fixed" -> 0.
float parse_camera_option(const std::string& text) {
    if (text == "fixed") return 0.0f;
    const std::string prefix = "orbit:";
    if (text.rfind(prefix, 0) == 0) {
        if (const std::optional<float> deg = whole_float(text.substr(prefix.size()));
            deg && std::abs(*deg) <= 360.0f)
            return *deg;
    }
    throw CLI::ValidationError("--camera",
                               "'" + text +
                                   "'; supported: fixed (the scene's camera), orbit:DEG_PER_FRAME, "
                                   "e.g. orbit:0.5 (turn round the target, -360..360 degrees per frame), or "
                                   "path:FILE (keyframes, docs/CAMERA-PATHS.md)");
}
}  // namespace

void apply_camera_option(const std::string& text, ViewOptions& options) {
    if (text.rfind("path:", 0) == 0)
        options.camera_path = parse_camera_path_option(text);
    else
        options.orbit_deg_per_frame = parse_camera_option(text);
}

render::CameraPath parse_camera_path_option(const std::string& text) {
    const std::string file = text.substr(std::string("path:").size());
    if (file.empty()) throw CLI::ValidationError("--camera", "path: needs a file, e.g. path:assets/camera-paths/figure-eight-flyby.txt");
    try {
        return render::CameraPath::load(file);
    } catch (const std::runtime_error& e) {
        throw CLI::ValidationError("--camera", std::string("bad camera path: ") + e.what());
    }
}

}  // namespace nbody::app
