#pragma once
// Where the panels go (issue 33): stacked in a left and a right column, each panel under the one
// before at that panel's real height, above a band kept free at the bottom for the scale bar,
// legend, status bar and badge. Pure arithmetic (no ImGui), so that "no panel covers another"
// is tested on rectangles (tests/app/panel_layout_test.cpp).

#include <vector>

namespace nbody::app {

enum class Column { Left, Right };

struct PanelSize {
    float width = 0, height = 0;  // last frame's (0 before the panel was first drawn)
    Column column = Column::Left; // where it goes when there is room
};

struct LayoutArea {
    float width = 0, height = 0;  // the display
    float top = 0;                // under the menu bar
    float bottom_band = 0;        // kept free at the bottom (scale bar, legend, status bar)
    float margin = 0;             // between panels and from the edges
    float title_height = 0;       // of a collapsed panel
    float min_height = 0;         // less room than this: the panel is collapsed to its title bar
};

struct PanelPlace {
    float x = 0, y = 0;      // top-left corner
    Column column = Column::Left;  // the one it went to (right: aligned on the display's edge)
    float max_height = 0;    // the panel scrolls beyond this, rather than run into the next
    bool collapsed = false;  // no room for its content: shown as its title bar
};

// Places `panels` in order: each in its own column under the panels already there when it fits
// above the bottom band, else in the other column, else (scrolling) where more room is left;
// with less than min_height anywhere it is collapsed. Where two of the widest panel cannot stand side by side,
// all go in one column on the left.
std::vector<PanelPlace> stack_panels(const LayoutArea& area, const std::vector<PanelSize>& panels);

// The height `panel` takes where it was placed: its own, or less where it scrolls or is collapsed.
float placed_height(const LayoutArea& area, const PanelSize& panel, const PanelPlace& place);

}  // namespace nbody::app
