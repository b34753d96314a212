#pragma once
// What saved frames carry when asked to (`--annotate`, the Recording panel, the Python module's
// render(annotate=True)): a scale bar in the scene's length unit, the colour legend (a swatch per
// galaxy by name, or per component; a colour bar with its speeds in the scene's velocity unit;
// main-sequence stars by their masses when colouring by mass) and the model time, bottom left.
// Text is 1/40 of the frame's height unless a size is asked for (`--annotate-size`), so a 4K frame
// reads like a 720p one. Drawn with Dear ImGui into its background draw list, so between
// ImGuiLayer::begin_frame and finish_frame, under any panels.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nbody/render/camera.hpp"
#include "nbody/render/colormap.hpp"
#include "nbody/render/particle_renderer.hpp"
#include "nbody/sim/scene.hpp"

struct ImFont;  // Dear ImGui's

namespace nbody::render {

struct FrameAnnotations {
    const OrbitCamera& camera;
    const UnitSystem& units;
    ColourMode colour_mode = ColourMode::Galaxy;
    int galaxies = 1;                              // distinct galaxy labels
    const std::vector<std::string>& galaxy_names;  // a scene's [[galaxy]] names; empty: "galaxy k"
    std::optional<double> time;                    // the model time, when the frame is to show it
    float speed_scale = 0;                         // colouring by speed: the speed at the map's top
    ColorMap colour_map = ColorMap::Inferno;
    unsigned components = 0;                       // colouring by component: bit c set when Component c is drawn
    float text_px = 0;                             // text height in pixels; 0: annotation_text_px's default
};

// Returns the height they take from the bottom of the frame (for keeping panels off them).
float draw_annotations(const FrameAnnotations& annotations);

// "t = 51.0 Myr", "t = 1.25 Gyr" where the scene has physical units; "t = 12.35 (N-body units)"
// otherwise.
std::string time_text(double t, const UnitSystem& units);

// Annotation text height for a frame `frame_height` pixels tall: `asked` when > 0, else 1/40 of
// the frame (18 px at 720p, 27 at 1080p, 54 at 4K), 13 px at least (still legible in a thumbnail).
float annotation_text_px(float asked, float frame_height);
// The legend's rows: the index of each row's first entry, entries of `widths` (pixels, spacing
// included) placed left to right while a row holds at most `room` pixels. None without entries.
std::vector<std::size_t> legend_rows(const std::vector<float>& widths, float room);
// The size of the second face ImGuiLayer loads for large annotations (the panels' face is 15 px).
inline constexpr float kLargeAnnotationFontPx = 48.0f;
// The face annotation text of `text_px` pixels is drawn with: the large one from half its size on
// (when the layer could load it), else the panels' face.
ImFont* annotation_font(float text_px);
// Galaxy `k`'s name from a scene's [[galaxy]] names; "galaxy k+1" where it has none.
std::string galaxy_name(const std::vector<std::string>& names, int k);
// "disk", "bulge", "halo", "star", "unspecified".
const char* component_name(Component c);
// "100 km/s" -> {100, "km/s"}; a unit without a leading number ("N-body velocity") -> {0, ""}.
std::pair<double, std::string> split_unit(const std::string& unit);
// A value in a unit as the scene names it: "100 km/s" x 2.12 -> "212 km/s"; "N-body velocity" ->
// "2.12 (N-body units)".
std::string with_unit(double value, const std::string& unit);
// A linear-RGB legend colour as ImGui draws it (8-bit sRGB, opaque, packed as IM_COL32).
std::uint32_t display_colour(const glm::vec3& linear);
// "(1.2, -3.4, 0.1) kpc" in the same way.
std::string vector_text(double x, double y, double z, const std::string& unit);

}  // namespace nbody::render
