#pragma once
// Reading rendered frames back and saving them as PNG. Files are written whole or not at all
// (through a temporary file renamed into place), so a viewer or an encoder watching the folder
// never sees half a frame.

#include <cstdint>
#include <string>
#include <vector>

#include "nbody/render/gl.hpp"

namespace nbody::render {

// 8-bit RGBA, rows from the top of the image down (PNG order, not GL's).
struct Image {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgba;

    const std::uint8_t* pixel(int x, int y) const { return &rgba[(std::size_t(y) * width + x) * 4]; }
};

// Reads colour attachment 0 of `framebuffer` (0: the window's back buffer) after finishing
// the GL work that draws into it.
Image read_framebuffer(GLuint framebuffer, int width, int height);

// PNG bytes of `image` (RGB: the alpha of a tone-mapped frame is meaningless).
std::vector<std::uint8_t> encode_png(const Image& image);

// PNG bytes of tightly packed RGB pixels, width * height * 3 bytes. `bottom_up`: rows are in GL's
// order (an AsyncFrameReader frame); libpng then walks them with a negative stride, so nothing is
// copied to flip them. `fast`: zlib's fastest setting (recording: PNG encoding, not the GPU, is
// the bottleneck of a frame sequence; files come out some 20-40% larger).
std::vector<std::uint8_t> encode_png_rgb(const std::uint8_t* rgb, int width, int height, bool bottom_up,
                                         bool fast);
// The same from RGB (channels 3) or RGBA (channels 4; the alpha is dropped) pixels.
std::vector<std::uint8_t> encode_png_pixels(const std::uint8_t* pixels, int channels, int width, int height,
                                            bool bottom_up, bool fast);

// Writes `image` to `path` atomically. Throws std::runtime_error naming the path and cause.
void write_png(const std::string& path, const Image& image);

// Reads a PNG as RGBA (tests, and comparing frames). Throws std::runtime_error.
Image read_png(const std::string& path);

}  // namespace nbody::render
