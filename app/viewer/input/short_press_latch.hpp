#pragma once
// Dear ImGui 1.86 (Debian's) looks at a key once a frame, as held or not: a key pressed and
// released between two frames (a quick tap, Enter in a text field) would never be seen. Its GLFW
// backend latches mouse buttons that way (MouseJustPressed), not keys. This latch notes such
// taps from the key callback so that the frame loop can show the key held for exactly one frame.

#include <algorithm>
#include <vector>

namespace nbody::app {

class ShortPressLatch {
  public:
    void pressed(int key) {
        if (std::find(pressed_.begin(), pressed_.end(), key) == pressed_.end()) pressed_.push_back(key);
    }
    void released(int key) {
        if (std::find(pressed_.begin(), pressed_.end(), key) != pressed_.end() &&
            std::find(taps_.begin(), taps_.end(), key) == taps_.end())
            taps_.push_back(key);
    }
    // After a frame's events: the keys both pressed and released since the last call.
    std::vector<int> take_taps() {
        pressed_.clear();
        std::vector<int> taps;
        taps.swap(taps_);
        return taps;
    }

  private:
    std::vector<int> pressed_, taps_;
};

}  // namespace nbody::app
