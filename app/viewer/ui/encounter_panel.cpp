// The Encounter panel: edits EncounterParams, raises its one-shot requests; builds nothing.

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "nbody/render/annotations.hpp"
#include "orbit_preview.hpp"
#include "ui_widgets.hpp"
#include "viewer_encounter.hpp"

namespace nbody::app {

namespace {

constexpr double kMsunPerMassUnit = 2.325e9;  // galactic units (docs/SCENES.md)
constexpr double kKmsPerVelocityUnit = 100.0;

std::string format(const char* fmt, double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, x);
    return buf;
}

// A double drag field with a unit in its format (no slider knob over the digits): drag to
// change, double-click or Ctrl+click to type. `width_em` 0: the default width.
bool field(const char* label, double* value, double lo, double hi, const char* fmt, bool logarithmic,
           float width_em = 8.0f) {
    if (width_em > 0) ImGui::SetNextItemWidth(em() * width_em);
    else ImGui::SetNextItemWidth(-FLT_MIN);
    const float speed = float(logarithmic ? 0.005 : (hi - lo) / 600.0);
    return ImGui::DragScalar(label, ImGuiDataType_Double, value, speed, &lo, &hi, fmt,
                             (logarithmic ? ImGuiSliderFlags_Logarithmic : ImGuiSliderFlags_None) |
                                 ImGuiSliderFlags_AlwaysClamp);
}

bool has_disk(const GalaxySpec& g) {
    return std::any_of(g.components.begin(), g.components.end(),
                       [](const ComponentSpec& c) { return c.kind == ComponentKind::Disk && c.bodies > 0; });
}

// What the orbit is, in words and units: its kind, apocentre, when the pericentre comes.
void orbit_summary(const EncounterSettings& s, double total_mass, const UnitSystem& units) {
    const bool physical = units.time_unit_myr > 0;
    const char* len = physical ? "kpc" : "length units";
    std::string kind;
    if (std::abs(s.eccentricity - 1.0) < 1e-9) {
        kind = "parabolic: just unbound";
    } else if (s.eccentricity < 1.0) {
        const double apo = s.pericentre * (1 + s.eccentricity) / (1 - s.eccentricity);
        kind = "bound: apocentre " + format("%.3g ", apo) + len;
    } else {
        // Speed at infinity: v^2 = M (e - 1) / r_p.
        const double v_inf = std::sqrt(total_mass * (s.eccentricity - 1) / s.pericentre);
        kind = physical ? "hyperbolic: " + format("%.0f km/s", v_inf * kKmsPerVelocityUnit) + " at infinity"
                        : "hyperbolic: " + format("%.3g", v_inf) + " at infinity";
    }
    wrapped(kDim, kind, 22.0f);
    try {
        std::string when;
        if (s.start_by_time) {
            const double sep = separation_for_time(total_mass, s.pericentre, s.eccentricity, s.time_to_pericentre);
            when = "starts " + format("%.3g ", sep) + len + " apart";
        } else {
            const double t = ic::kepler_initial_conditions(total_mass, {s.pericentre, s.separation, s.eccentricity})
                                 .time_to_pericentre;
            when = physical ? "pericentre after " + format("%.0f Myr", t * units.time_unit_myr) +
                                  format(" (%.3g time units)", t)
                            : "pericentre after " + format("%.3g time units", t);
        }
        wrapped(kDim, when + ", as point masses", 22.0f);
    } catch (const std::exception& error) {
        wrapped(kError, error.what(), 22.0f);
    }
}

// The two centres' paths (orbit_preview.hpp) in the orbit plane, scaled to fit, each in its
// galaxy's legend colour, dots where they start, a cross at the centre of mass: the shape of the
// encounter before it is launched.
void draw_orbit_preview(const EncounterSettings& s, double m1, double m2, const UnitSystem& units) {
    OrbitPreview p;
    try {
        p = orbit_preview(m1, m2, s);
    } catch (const std::exception&) {
        return;  // orbit_summary says why
    }
    double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    for (const auto* path : {&p.primary, &p.secondary})
        for (const Vec3d& v : *path) {
            x0 = std::min(x0, v.x), x1 = std::max(x1, v.x), y0 = std::min(y0, v.y), y1 = std::max(y1, v.y);
        }
    const ImVec2 size(em() * 22.0f, em() * 9.0f), corner = ImGui::GetCursorScreenPos();
    const double scale = 0.9 * std::min(size.x / std::max(x1 - x0, 1e-9), size.y / std::max(y1 - y0, 1e-9));
    const auto at = [&](const Vec3d& v) {  // orbit y up
        return ImVec2(corner.x + size.x * 0.5f + float((v.x - 0.5 * (x0 + x1)) * scale),
                      corner.y + size.y * 0.5f - float((v.y - 0.5 * (y0 + y1)) * scale));
    };
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(corner, ImVec2(corner.x + size.x, corner.y + size.y), IM_COL32(0, 0, 0, 90), 3.0f);
    for (int k = 0; k < 2; ++k) {
        const std::vector<Vec3d>& path = k == 0 ? p.primary : p.secondary;
        std::vector<ImVec2> points;
        for (const Vec3d& v : path) points.push_back(at(v));
        const ImU32 colour = render::display_colour(render::galaxy_colour(k));
        draw->AddPolyline(points.data(), int(points.size()), colour, ImDrawFlags_None, 1.5f);
        draw->AddCircleFilled(points.front(), em() * 0.25f, colour);
    }
    const ImVec2 c = at({0, 0, 0});
    const float r = em() * 0.3f;
    draw->AddLine(ImVec2(c.x - r, c.y), ImVec2(c.x + r, c.y), IM_COL32(200, 200, 210, 200));
    draw->AddLine(ImVec2(c.x, c.y - r), ImVec2(c.x, c.y + r), IM_COL32(200, 200, 210, 200));
    ImGui::Dummy(size);
    tooltip("The galaxies' centres as point masses in the orbit plane (centre-of-mass frame, +: its centre), "
            "from their start (dots) past pericentre. The disks' own stars are not drawn.");
    wrapped(kDim, "Orbits as point masses, " + format("%.3g ", p.start_separation) +
                      (units.time_unit_myr > 0 ? "kpc" : "length units") + " apart at the dots",
            22.0f);
}

// The two disks side by side: inclination, argument, spin.
void disk_table(const SceneSpec& base, EncounterSettings& s) {
    if (!ImGui::BeginTable("disks", 3, ImGuiTableFlags_SizingFixedFit)) return;
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, em() * 5.5f);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, em() * 8.0f);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, em() * 8.0f);
    auto row = [](const char* label, const char* help) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(label);
        if (help) tooltip(help);
    };
    row("Disk", nullptr);
    for (int k = 0; k < 2; ++k) {
        ImGui::TableNextColumn();
        ImGui::PushTextWrapPos(0.0f);  // a long name wraps within its column
        ImGui::TextColored(kDim, "%d: %s", k + 1, base.galaxies[std::size_t(k)].name.c_str());
        ImGui::PopTextWrapPos();
    }
    const bool disk[2] = {has_disk(base.galaxies[0]), has_disk(base.galaxies[1])};
    row("Inclination",
        "i: angle between the disk's spin and the orbital angular momentum (Toomre & Toomre 1972): 0 prograde "
        "in the orbit plane, 90 polar, 180 retrograde in the plane.");
    for (int k = 0; k < 2; ++k) {
        ImGui::TableNextColumn();
        ImGui::PushID(k);
        if (disk[k]) field("##i", &s.disk[k].inclination_deg, 0.0, 180.0, "%.1f deg", false, 0);
        else ImGui::TextColored(kDim, "no disk");
        ImGui::PopID();
    }
    row("Argument",
        "w: angle in the orbit plane, in the sense of the orbital motion, from the disk's line of nodes to the "
        "pericentre (TT72).");
    for (int k = 0; k < 2; ++k) {
        ImGui::TableNextColumn();
        ImGui::PushID(k);
        if (disk[k]) field("##w", &s.disk[k].argument_deg, -180.0, 180.0, "%.1f deg", false, 0);
        ImGui::PopID();
    }
    row("Spin",
        "With or against the orbit. Switching keeps the disk's plane and reverses its rotation (i -> 180 - i, "
        "w -> w + 180). Prograde passages throw out long tidal tails; retrograde disks hardly respond.");
    static const char* const kSpins[] = {"prograde", "retrograde"};
    for (int k = 0; k < 2; ++k) {
        ImGui::TableNextColumn();
        ImGui::PushID(k);
        int spin = is_retrograde(s.disk[k]) ? 1 : 0;
        ImGui::SetNextItemWidth(-FLT_MIN);
        if (disk[k] && ImGui::Combo("##spin", &spin, kSpins, 2) && (spin == 1) != is_retrograde(s.disk[k]))
            s.disk[k] = reversed_spin(s.disk[k]);
        ImGui::PopID();
    }
    ImGui::EndTable();
}

}  // namespace

void draw_encounter_panel(EncounterParams& e, bool* open) {
    if (!ImGui::Begin("Encounter", open, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::End();
        return;
    }
    ImGui::TextUnformatted("Start from");
    for (int i = 0; i < int(e.presets.size()); ++i) {
        ImGui::SameLine();
        const bool current = i == e.preset;
        if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        if (ImGui::Button(e.presets[i].label.c_str())) e.load_preset = i;
        if (current) ImGui::PopStyleColor();
        tooltip(("Its galaxies, orbit and camera: " + e.presets[i].path).c_str());
    }
    if (e.presets.empty()) wrapped(kWarn, "No two-galaxy scene files found in the scene folders.", 22.0f);
    if (!e.loaded) {
        if (!e.status.empty()) wrapped(e.status_is_error ? kError : kDim, e.status, 22.0f);
        ImGui::End();
        return;
    }
    const SceneSpec& base = e.loaded->spec;
    const UnitSystem& units = base.units;
    const bool physical = units.time_unit_myr > 0;
    EncounterSettings& s = e.settings;

    ImGui::Separator();
    ImGui::TextColored(kDim, "Orbit");
    field("Mass ratio M2/M1", &s.mass_ratio, 0.05, 20.0, "%.3g", true);
    help_marker("The second galaxy's total mass over the first's. Its masses are scaled, its sizes by the cube "
                "root (the same mean density and internal times).");
    const double m1 = galaxy_mass(base.galaxies[0]);
    const double m2 = galaxy_mass(base.galaxies[1]) * s.mass_ratio / e.loaded->settings.mass_ratio;
    if (physical)
        ImGui::TextColored(kDim, "M1 = %.3g Msun, M2 = %.3g Msun", m1 * kMsunPerMassUnit, m2 * kMsunPerMassUnit);
    else
        ImGui::TextColored(kDim, "M1 = %.3g, M2 = %.3g (mass units)", m1, m2);
    field("Pericentre", &s.pericentre, 0.01, 200.0, physical ? "%.3g kpc" : "%.3g", true);
    help_marker("Closest approach of the galaxies' centres on the point-mass (Kepler) orbit. Tails need a "
                "passage within a few disk radii.");
    field("Eccentricity e", &s.eccentricity, 0.0, 3.0, "%.3f", false);
    ImGui::SameLine();
    if (ImGui::SmallButton("parabolic")) s.eccentricity = 1.0;
    help_marker("1: parabolic (the usual choice: galaxies falling together from rest far away); below 1 "
                "bound, above 1 hyperbolic (faster, weaker tides).");
    if (ImGui::RadioButton("by separation", !s.start_by_time)) s.start_by_time = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("by time to pericentre", s.start_by_time)) s.start_by_time = true;
    if (s.start_by_time) {
        const double unit = physical ? units.time_unit_myr : 1.0;
        double t = s.time_to_pericentre * unit;
        if (field("Time to pericentre", &t, 1.0 * unit, 1000.0 * unit, physical ? "%.0f Myr" : "%.3g", true))
            s.time_to_pericentre = t / unit;
    } else {
        field("Separation", &s.separation, 1.0, 1000.0, physical ? "%.3g kpc" : "%.3g", true);
        help_marker("Distance between the centres at the start. Halos that overlap at the start are already "
                    "interacting: start beyond the sum of the halo radii.");
    }
    orbit_summary(s, m1 + m2, units);
    draw_orbit_preview(s, m1, m2, units);

    ImGui::Separator();
    disk_table(base, s);

    ImGui::Separator();
    std::size_t components = 0;
    for (const GalaxySpec& g : base.galaxies) components += g.components.size();
    const int most = e.max_bodies > 0 ? int(e.max_bodies) : 1 << 24;
    int n = int(std::min<std::size_t>(s.bodies, std::size_t(most)));
    ImGui::SetNextItemWidth(em() * 8.0f);
    ImGui::InputInt("Particles N", &n, 1024, 8192);
    s.bodies = std::size_t(std::clamp(n, int(components), most));
    if (e.max_bodies > 0) {
        ImGui::SameLine();
        ImGui::TextColored(kDim, "at most %zu on the %s backend", e.max_bodies, e.backend.c_str());
        tooltip("Beyond this the CPU takes seconds per step. After Launch, the Simulation panel's N goes higher.");
    }

    ImGui::Separator();
    if (ImGui::Button("Launch", ImVec2(em() * 5.0f, 0))) e.launch = true;
    tooltip("Builds this encounter and starts it. If it cannot be built, the running simulation goes on and "
            "the reason is shown here.");
    ImGui::SameLine(0, em() * 1.5f);
    ImGui::SetNextItemWidth(em() * 11.0f);
    char path[512];
    std::snprintf(path, sizeof path, "%s", e.save_path.c_str());
    if (ImGui::InputText("##save", path, sizeof path)) {
        e.save_path = path;
        e.confirm_overwrite = false;
    }
    ImGui::SameLine();
    if (ImGui::Button("Save")) e.save = true;
    tooltip("Writes this encounter as a scene file (nbody view --scene FILE opens it again). An existing file "
            "is replaced only after you confirm.");
    if (e.confirm_overwrite) {
        wrapped(kWarn, e.save_path + " exists. Replace it?", 22.0f);
        if (ImGui::Button("Replace")) {
            e.save = true;
            e.overwrite = true;
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) e.confirm_overwrite = false;
    } else if (!e.status.empty()) {  // (when the file exists, the question above says so)
        wrapped(e.status_is_error ? kError : kGood, e.status, 22.0f);
    }
    ImGui::End();
}

}  // namespace nbody::app
