// The Open dialog's ImGui window (no native file dialog is available to a GLFW program without
// another library). The browsing logic is FileBrowser's (open_dialog.cpp); this file only draws
// it and maps keys to it.

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstring>

#include "open_dialog.hpp"

namespace nbody::app {

namespace {

const ImVec4 kFolderColour(0.55f, 0.75f, 1.00f, 1.0f);
const ImVec4 kSceneColour(0.45f, 0.90f, 0.55f, 1.0f);
const ImVec4 kDimColour(0.62f, 0.66f, 0.74f, 1.0f);
const ImVec4 kErrorColour(1.00f, 0.45f, 0.40f, 1.0f);

bool pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key)); }

std::string size_text(std::uintmax_t bytes) {
    char buf[32];
    if (bytes < 1024) std::snprintf(buf, sizeof buf, "%ju B", bytes);
    else if (bytes < (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f KiB", double(bytes) / 1024.0);
    else if (bytes < (1ull << 30)) std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / 1048576.0);
    else std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / 1073741824.0);
    return buf;
}

const char* kind_text(BrowserEntry::Kind kind) {
    switch (kind) {
        case BrowserEntry::Kind::Parent: return "parent folder";
        case BrowserEntry::Kind::Folder: return "folder";
        case BrowserEntry::Kind::Scene: return "scene";
        case BrowserEntry::Kind::Particles: return "particles";
    }
    return "";
}

}  // namespace

std::optional<std::string> OpenDialog::draw(bool* open, const std::vector<Place>& places) {
    if (!*open) {
        was_open_ = false;
        return std::nullopt;
    }
    if (!browser_) {
        std::error_code ec;
        browser_.emplace(std::filesystem::current_path(ec));
    }
    FileBrowser& b = *browser_;
    const bool opening = !was_open_;
    was_open_ = true;
    if (opening) b.refresh();  // the folder may have changed since the last time

    const ImGuiIO& io = ImGui::GetIO();
    const float em = ImGui::GetFontSize();
    ImGui::SetNextWindowPos(ImVec2(io.DisplaySize.x * 0.5f, io.DisplaySize.y * 0.5f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSize(ImVec2(std::min(40.0f * em, io.DisplaySize.x * 0.95f),
                                    std::min(28.0f * em, io.DisplaySize.y * 0.9f)),
                             ImGuiCond_Appearing);
    ImGui::SetNextWindowBgAlpha(0.97f);
    if (opening) ImGui::SetNextWindowFocus();
    std::optional<std::string> chosen;
    if (!ImGui::Begin("Open a scene or particle file", open, ImGuiWindowFlags_NoCollapse)) {
        ImGui::End();
        return std::nullopt;
    }

    ImGui::TextColored(kDimColour, "Folder:");
    ImGui::SameLine();
    ImGui::TextWrapped("%s", b.folder().string().c_str());
    if (ImGui::Button("Up")) b.go_up();
    for (const Place& place : places) {
        ImGui::SameLine();
        const std::string label = place.label + "##" + place.folder;
        if (ImGui::Button(label.c_str())) b.go_to(place.folder);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", place.folder.c_str());
    }

    // The filter keeps the keyboard: typing always lands here, so that Esc and Enter are the
    // dialog's (and never quit the viewer or reach the scene behind it).
    char filter[512];
    std::snprintf(filter, sizeof filter, "%s", b.filter().c_str());
    const bool was_empty = filter[0] == '\0';
    if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !ImGui::IsAnyItemActive())
        ImGui::SetKeyboardFocusHere();
    ImGui::SetNextItemWidth(-FLT_MIN);
    const bool enter = ImGui::InputTextWithHint("##filter", "type to filter, or a path (/..., ~/...)", filter,
                                                sizeof filter, ImGuiInputTextFlags_EnterReturnsTrue);
    if (std::strcmp(filter, b.filter().c_str()) != 0) {
        b.set_filter(filter);
        scroll_to_selection_ = true;
    }
    const bool focused = ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows);
    if (focused) {
        const int page = 10;
        const int move = (pressed(ImGuiKey_DownArrow) ? 1 : 0) - (pressed(ImGuiKey_UpArrow) ? 1 : 0) +
                         (pressed(ImGuiKey_PageDown) ? page : 0) - (pressed(ImGuiKey_PageUp) ? page : 0);
        if (move != 0) {
            b.move_selection(move);
            scroll_to_selection_ = true;
        }
        if (was_empty && pressed(ImGuiKey_Backspace)) b.go_up();
        if (pressed(ImGuiKey_Escape)) *open = false;
    }
    if (enter) {
        chosen = b.activate();
        scroll_to_selection_ = true;
    }

    // The listing, in a child that scrolls, leaving room for the hint and error lines below.
    const float footer = ImGui::GetFrameHeightWithSpacing() + ImGui::GetTextLineHeightWithSpacing() * 2.0f;
    if (ImGui::BeginChild("entries", ImVec2(0, -footer), true)) {
        const std::vector<std::size_t>& visible = b.visible();
        if (visible.empty())
            ImGui::TextColored(kDimColour, "%s", b.typed_path() ? "Enter: open or go to this path"
                                                                : "nothing here the viewer opens matches the filter");
        const float kind_x = ImGui::GetContentRegionAvail().x - 12.0f * em;
        for (std::size_t k = 0; k < visible.size() && !chosen; ++k) {
            const BrowserEntry& e = b.entries()[visible[k]];
            const bool folder = e.kind == BrowserEntry::Kind::Folder || e.kind == BrowserEntry::Kind::Parent;
            ImGui::PushID(int(k));
            const bool selected = k == b.selected();
            ImGui::PushStyleColor(ImGuiCol_Text, folder ? kFolderColour
                                                 : e.kind == BrowserEntry::Kind::Scene ? kSceneColour
                                                                                      : ImGui::GetStyleColorVec4(ImGuiCol_Text));
            const std::string label = folder && e.kind != BrowserEntry::Kind::Parent ? e.name + "/" : e.name;
            if (ImGui::Selectable(label.c_str(), selected, ImGuiSelectableFlags_AllowDoubleClick)) {
                b.select(k);
                if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) chosen = b.activate();
            }
            ImGui::PopStyleColor();
            if (selected && scroll_to_selection_) ImGui::SetScrollHereY(0.5f);
            ImGui::SameLine(std::max(kind_x, ImGui::GetCursorPosX() + em));
            if (folder)
                ImGui::TextColored(kDimColour, "%s", kind_text(e.kind));
            else
                ImGui::TextColored(kDimColour, "%-10s %10s", kind_text(e.kind), size_text(e.bytes).c_str());
            ImGui::PopID();
        }
        scroll_to_selection_ = false;
    }
    ImGui::EndChild();
    if (!b.error().empty())
        ImGui::TextColored(kErrorColour, "%s", b.error().c_str());
    else
        ImGui::TextColored(kDimColour, "%zu of %zu entries", b.visible().size(), b.entries().size());
    ImGui::TextColored(kDimColour, "Type to filter   Up/Down select   Enter open   Backspace parent   Esc close");
    ImGui::End();
    if (chosen) *open = false;
    if (!*open) was_open_ = false;
    return chosen;
}

}  // namespace nbody::app
