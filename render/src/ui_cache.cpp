#include "nbody/render/ui_cache.hpp"

#include <algorithm>
#include <cstddef>

#include "nbody/render/gl_check.hpp"

namespace nbody::render {

std::vector<PixelRect> covered_tiles(const std::vector<PixelRect>& shapes, int width, int height, int tile) {
    if (width <= 0 || height <= 0 || tile <= 0) return {};
    const int columns = (width + tile - 1) / tile, rows = (height + tile - 1) / tile;
    std::vector<char> covered(std::size_t(columns) * std::size_t(rows), 0);
    for (const PixelRect& s : shapes) {
        const int x0 = std::clamp(s.x0, 0, width), x1 = std::clamp(s.x1, 0, width);
        const int y0 = std::clamp(s.y0, 0, height), y1 = std::clamp(s.y1, 0, height);
        if (x0 >= x1 || y0 >= y1) continue;
        for (int row = y0 / tile; row < (y1 + tile - 1) / tile; ++row)
            std::fill_n(covered.begin() + std::ptrdiff_t(row) * columns + x0 / tile,
                        (x1 + tile - 1) / tile - x0 / tile, char(1));
    }
    std::vector<PixelRect> runs;
    for (int row = 0; row < rows; ++row)
        for (int column = 0; column < columns;) {
            const auto at = [&](int c) {
                return covered[std::size_t(row) * std::size_t(columns) + std::size_t(c)];
            };
            if (!at(column)) {
                ++column;
                continue;
            }
            const int first = column;
            while (column < columns && at(column)) ++column;
            runs.push_back({first * tile, row * tile, std::min(column * tile, width),
                            std::min((row + 1) * tile, height)});
        }
    return runs;
}

bool UiRedrawPolicy::redraw(bool changed, bool input, Clock::time_point now) {
    const auto since = [&](Clock::time_point t) { return std::chrono::duration<double>(now - t).count(); };
    if (input) last_input_ = now;
    had_input_ |= input;
    ++frames_since_drawn_;
    const bool answers_input = had_input_ && since(last_input_) <= timing_.after_input_s;
    const bool due =
        since(last_drawn_) >= timing_.refresh_s && frames_since_drawn_ >= timing_.refresh_frames;
    if (drawn_ && !(changed && (answers_input || due))) return false;
    drawn_ = true;
    last_drawn_ = now;
    frames_since_drawn_ = 0;
    return true;
}

void CachedPicture::begin_redraw(int width, int height) {
    if (target_.ensure(width, height, GL_RGBA8)) {
        glTextureParameteri(target_.texture(), GL_TEXTURE_MIN_FILTER, GL_NEAREST);  // one texel a pixel
        glTextureParameteri(target_.texture(), GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, target_.framebuffer());
    glViewport(0, 0, target_.width(), target_.height());
    // A clear obeys the scissor box and the colour mask. One clear of the whole picture: clearing
    // only the old picture's area took a drawn rectangle per square run on llvmpipe (Mesa clears
    // a part of a target by drawing it), several milliseconds a redraw.
    glDisable(GL_SCISSOR_TEST);
    glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    const float transparent[4] = {0, 0, 0, 0};
    glClearNamedFramebufferfv(target_.framebuffer(), GL_COLOR, 0, transparent);
}

void CachedPicture::end_redraw(std::vector<PixelRect> area) {
    area_ = std::move(area);
    rects_ = create_buffer_storage(area_.size() * sizeof(PixelRect), area_.data(), 0);
    NBODY_GL_CHECK_STATE("keeping the panels' picture");
}

void PictureBlender::create() {
    program_ = ShaderProgram::load({"ui_composite.vert", "ui_composite.frag"});
    vao_ = create_vertex_array();
    glEnableVertexArrayAttrib(vao_.id(), 0);
    glVertexArrayAttribIFormat(vao_.id(), 0, 4, GL_INT, 0);
    glVertexArrayAttribBinding(vao_.id(), 0, 0);
    glVertexArrayBindingDivisor(vao_.id(), 0, 1);  // one rectangle per instance
}

void PictureBlender::blend(const CachedPicture& picture, GLuint framebuffer) {
    if (picture.area().empty()) return;
    if (!program_) create();
    glVertexArrayVertexBuffer(vao_.id(), 0, picture.area_buffer(), 0, sizeof(PixelRect));
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
    glViewport(0, 0, picture.width(), picture.height());
    glDisable(GL_SCISSOR_TEST);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);  // premultiplied "over"
    program_.set("u_size", glm::vec2(float(picture.width()), float(picture.height())));
    glBindTextureUnit(0, picture.texture());
    glBindVertexArray(vao_.id());
    program_.use();
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, GLsizei(picture.area().size()));
    glBindVertexArray(0);
    glUseProgram(0);
    glBindTextureUnit(0, 0);
    glDisable(GL_BLEND);
    NBODY_GL_CHECK_STATE("blending the panels' picture over the frame");
}

}  // namespace nbody::render
