#include "nbody/render/frame_capture.hpp"

#include <png.h>

#include <cstring>
#include <ostream>
#include <stdexcept>

#include "nbody/render/gl_check.hpp"
#include "nbody/sim/atomic_file.hpp"

namespace nbody::render {

Image read_framebuffer(GLuint framebuffer, int width, int height) {
    if (width <= 0 || height <= 0)
        throw std::invalid_argument("read_framebuffer: empty size " + std::to_string(width) + "x" +
                                    std::to_string(height));
    Image image;
    image.width = width;
    image.height = height;
    image.rgba.resize(std::size_t(width) * height * 4);
    std::vector<std::uint8_t> rows(image.rgba.size());
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    glReadBuffer(framebuffer == 0 ? GL_BACK : GL_COLOR_ATTACHMENT0);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    NBODY_GL_CHECK_STATE("reading back the frame (glReadPixels)");
    const std::size_t stride = std::size_t(width) * 4;
    for (int y = 0; y < height; ++y)
        std::memcpy(&image.rgba[std::size_t(y) * stride], &rows[std::size_t(height - 1 - y) * stride],
                    stride);
    return image;
}

std::vector<std::uint8_t> encode_png(const Image& image) {
    if (image.width <= 0 || image.height <= 0 ||
        image.rgba.size() != std::size_t(image.width) * image.height * 4)
        throw std::invalid_argument("encode_png: image size and pixel data disagree");
    std::vector<std::uint8_t> rgb(std::size_t(image.width) * image.height * 3);
    for (std::size_t i = 0, n = std::size_t(image.width) * image.height; i < n; ++i)
        std::memcpy(&rgb[i * 3], &image.rgba[i * 4], 3);
    return encode_png_rgb(rgb.data(), image.width, image.height, false, false);
}

std::vector<std::uint8_t> encode_png_rgb(const std::uint8_t* rgb, int width, int height, bool bottom_up,
                                         bool fast) {
    if (width <= 0 || height <= 0 || !rgb)
        throw std::invalid_argument("encode_png_rgb: empty image " + std::to_string(width) + "x" +
                                    std::to_string(height));
    // libpng's simplified API reports errors through the struct instead of longjmp, which
    // would skip C++ destructors.
    png_image png;
    std::memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = png_uint_32(width);
    png.height = png_uint_32(height);
    png.format = PNG_FORMAT_RGB;
    if (fast) png.flags |= PNG_IMAGE_FLAG_FAST;
    // A negative stride: libpng starts at the last row of the buffer and walks back.
    const png_int_32 stride = png_int_32(width) * 3 * (bottom_up ? -1 : 1);
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&png, nullptr, &size, 0, rgb, stride, nullptr))
        throw std::runtime_error(std::string("PNG encoding failed: ") + png.message);
    std::vector<std::uint8_t> bytes(size);
    if (!png_image_write_to_memory(&png, bytes.data(), &size, 0, rgb, stride, nullptr))
        throw std::runtime_error(std::string("PNG encoding failed: ") + png.message);
    bytes.resize(size);
    return bytes;
}

std::vector<std::uint8_t> encode_png_pixels(const std::uint8_t* pixels, int channels, int width, int height,
                                            bool bottom_up, bool fast) {
    if (channels == 3) return encode_png_rgb(pixels, width, height, bottom_up, fast);
    if (channels != 4)
        throw std::invalid_argument("encode_png_pixels: " + std::to_string(channels) +
                                    " channels; supported: 3 (RGB), 4 (RGBA)");
    if (width <= 0 || height <= 0 || !pixels)
        throw std::invalid_argument("encode_png_pixels: empty image " + std::to_string(width) + "x" +
                                    std::to_string(height));
    // One buffer per encoding thread, reused frame after frame (megabytes each at 1080p).
    thread_local std::vector<std::uint8_t> rgb;
    const std::size_t n = std::size_t(width) * std::size_t(height);
    rgb.resize(n * 3);
    for (std::size_t i = 0; i < n; ++i) {
        rgb[3 * i] = pixels[4 * i];
        rgb[3 * i + 1] = pixels[4 * i + 1];
        rgb[3 * i + 2] = pixels[4 * i + 2];
    }
    return encode_png_rgb(rgb.data(), width, height, bottom_up, fast);
}

void write_png(const std::string& path, const Image& image) {
    const std::vector<std::uint8_t> bytes = encode_png(image);
    write_file_atomically(path, [&](std::ostream& out) {
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    });
}

Image read_png(const std::string& path) {
    png_image png;
    std::memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&png, path.c_str()))
        throw std::runtime_error("cannot read PNG " + path + ": " + png.message);
    png.format = PNG_FORMAT_RGBA;
    Image image;
    image.width = int(png.width);
    image.height = int(png.height);
    image.rgba.resize(PNG_IMAGE_SIZE(png));
    if (!png_image_finish_read(&png, nullptr, image.rgba.data(), 0, nullptr)) {
        png_image_free(&png);
        throw std::runtime_error("cannot decode PNG " + path + ": " + png.message);
    }
    return image;
}

}  // namespace nbody::render
