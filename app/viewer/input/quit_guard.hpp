#pragma once
// Work is not lost by accident (issue 33, item 5): Esc, File > Quit and closing the window ask
// first when the simulation has run since its state was last saved or loaded; asking again (a
// second Esc, closing again) quits. Scripted runs (headless, --frames, record) never ask.

namespace nbody::app {

enum class QuitDecision { Stay, Ask, Quit };

// `asked`: a quit this frame (Esc, the menu, the window's close button); `asking`: the question
// is on screen; `ran_since_save`: the model time moved since the last save or load.
inline QuitDecision decide_quit(bool asked, bool asking, bool ran_since_save, bool interactive) {
    if (!asked) return QuitDecision::Stay;
    if (!interactive || !ran_since_save || asking) return QuitDecision::Quit;
    return QuitDecision::Ask;
}

}  // namespace nbody::app
