#include "panel_layout.hpp"

#include <algorithm>

namespace nbody::app {

float placed_height(const LayoutArea& area, const PanelSize& panel, const PanelPlace& place) {
    return place.collapsed ? area.title_height : std::min(panel.height, place.max_height);
}

namespace {

// Whether two of the widest panel fit side by side: any panel may move to the other column.
bool side_by_side(const LayoutArea& area, const std::vector<PanelSize>& panels) {
    float widest = 0;
    for (const PanelSize& p : panels) widest = std::max(widest, p.width);
    return 2 * widest + 3 * area.margin <= area.width;
}

// The title bars (with margins) of the panels after `i` that belong to `column`.
float later_titles(const LayoutArea& area, const std::vector<PanelSize>& panels, std::size_t i, Column column, bool two) {
    float h = 0;
    for (std::size_t k = i + 1; k < panels.size(); ++k)
        if (!two || panels[k].column == column) h += area.title_height + area.margin;
    return h;
}

}  // namespace

std::vector<PanelPlace> stack_panels(const LayoutArea& area, const std::vector<PanelSize>& panels) {
    const bool two = side_by_side(area, panels);
    const float bottom = area.height - area.bottom_band;
    float next_y[2] = {area.top, area.top};
    std::vector<PanelPlace> places;
    places.reserve(panels.size());
    for (std::size_t i = 0; i < panels.size(); ++i) {
        const PanelSize& p = panels[i];
        // Room for the title bars of the panels still to come to this column is kept, so that a
        // panel that scrolls never pushes a later one into the bottom band.
        const auto room = [&](int c) { return bottom - next_y[c] - later_titles(area, panels, i, two ? Column(c) : Column::Left, two); };
        int c = two ? int(p.column) : 0;
        // The other column when the panel fits only there, or when neither fits it and the other
        // has more room: a panel never runs into the bottom band or the panel under it.
        const bool fits_here = p.height <= room(c), fits_there = two && p.height <= room(1 - c);
        if (!fits_here && two && (fits_there || room(1 - c) > room(c))) c = 1 - c;
        PanelPlace place;
        place.column = Column(c);
        place.x = c == 0 ? area.margin : area.width - area.margin - p.width;
        place.y = next_y[c];
        place.max_height = std::max(room(c), area.title_height);
        place.collapsed = p.height > room(c) && room(c) < area.min_height;
        next_y[c] += placed_height(area, p, place) + area.margin;
        places.push_back(place);
    }
    return places;
}

}  // namespace nbody::app
