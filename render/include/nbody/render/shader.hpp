#pragma once
// GLSL programs loaded at run time from files, so that shaders can be edited without rebuilding.
// Files are looked up in, in order: $NBODY_SHADER_DIR (when set), <directory of the executable>/shaders
// (the build copies them there), and <source tree>/shaders. Compile errors name the file and
// the line, in the "path:line: message" form editors jump to.

#include <filesystem>
#include <glm/glm.hpp>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "nbody/render/gl_objects.hpp"

namespace nbody::render {

class ShaderError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The folders searched for shader files, in order (only those that exist).
std::vector<std::filesystem::path> shader_search_dirs();

// The first `dirs` entry holding `name`; throws ShaderError listing every place looked.
std::filesystem::path find_shader_file(const std::string& name,
                                       const std::vector<std::filesystem::path>& dirs);

// Rewrites a driver's info log so every "0:12(5): error" (Mesa) or "0(12) : error" (NVIDIA)
// line reads "<file>:12: error", where the leading number (the GLSL source string, which
// `#line` sets for included files) picks the name from `files`. Lines the function does not
// recognise are kept as they are.
std::string format_shader_log(const std::string& log, const std::vector<std::string>& files);
std::string format_shader_log(const std::string& log, const std::string& file);

// Replaces each `#include "name"` line of `text` by that file (found in `dirs`, one level: an
// included file includes nothing), wrapped in `#line` directives so that the driver's messages
// name the right line; `files` gets each included file's path, as source string 1, 2, ...
// Throws ShaderError for a missing file or a nested include.
std::string expand_shader_includes(const std::string& text, const std::vector<std::filesystem::path>& dirs,
                                   std::vector<std::string>& files);

struct ShaderSource {
    GLenum stage;  // GL_VERTEX_SHADER, GL_FRAGMENT_SHADER, GL_COMPUTE_SHADER, ...
    std::string text;
    std::string file;                 // shown in error messages (source string 0)
    std::vector<std::string> included = {};  // source strings 1, 2, ...: expand_shader_includes
};

class ShaderProgram {
  public:
    ShaderProgram() = default;

    // Loads files by name (stage from the extension: .vert .frag .geom .comp) from `dirs`.
    static ShaderProgram load(std::initializer_list<std::string> names,
                              const std::vector<std::filesystem::path>& dirs = shader_search_dirs());
    // The same with `preamble` (e.g. "#define X y") put after each file's #version line: one file,
    // compile-time variants.
    static ShaderProgram load_with(const std::string& preamble, std::initializer_list<std::string> names,
                                   const std::vector<std::filesystem::path>& dirs = shader_search_dirs());
    // Compiles and links the given sources. Throws ShaderError with formatted driver messages.
    static ShaderProgram from_sources(const std::vector<ShaderSource>& sources);

    GLuint id() const { return program_.id(); }
    explicit operator bool() const { return static_cast<bool>(program_); }
    void use() const;

    // -1 when the program has no active uniform of that name (the GL convention: setting it is
    // then a no-op, which lets the C++ side outlive a shader edit that drops a uniform).
    GLint uniform(const char* name) const;
    void set(const char* name, int v) const;
    void set(const char* name, unsigned v) const;
    void set(const char* name, float v) const;
    void set(const char* name, const glm::vec2& v) const;
    void set(const char* name, const glm::ivec2& v) const;
    void set(const char* name, const int* v, int count) const;
    void set(const char* name, const float* v, int count) const;
    void set(const char* name, const glm::vec3& v) const;
    void set(const char* name, const glm::vec4& v) const;
    void set(const char* name, const glm::mat4& v) const;
    void set(const char* name, const glm::vec3* v, int count) const;

  private:
    GlProgram program_;
    mutable std::unordered_map<std::string, GLint> uniform_cache_;
};

}  // namespace nbody::render
