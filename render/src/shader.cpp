#include "nbody/render/shader.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <glm/gtc/type_ptr.hpp>
#include <regex>
#include <sstream>

#include "nbody/render/assets.hpp"
#include "nbody/render/gl_check.hpp"

namespace fs = std::filesystem;

namespace nbody::render {

namespace {

GLenum stage_from_name(const std::string& name) {
    const std::string ext = fs::path(name).extension().string();
    if (ext == ".vert") return GL_VERTEX_SHADER;
    if (ext == ".frag") return GL_FRAGMENT_SHADER;
    if (ext == ".geom") return GL_GEOMETRY_SHADER;
    if (ext == ".comp") return GL_COMPUTE_SHADER;
    throw ShaderError("shader file '" + name +
                      "' has an unknown extension; expected .vert, .frag, .geom or .comp");
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ShaderError("cannot open shader file " + path.string());
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw ShaderError("cannot read shader file " + path.string());
    return text.str();
}

std::string info_log(GLuint object, bool is_program) {
    GLint length = 0;
    if (is_program)
        glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
    else
        glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<std::size_t>(std::max(length, 1)), '\0');
    if (is_program)
        glGetProgramInfoLog(object, length, nullptr, log.data());
    else
        glGetShaderInfoLog(object, length, nullptr, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    return log;
}

std::vector<std::string> source_files(const ShaderSource& source) {
    std::vector<std::string> files{source.file};
    files.insert(files.end(), source.included.begin(), source.included.end());
    return files;
}

}  // namespace

std::vector<fs::path> shader_search_dirs() { return run_time_dirs("NBODY_SHADER_DIR", "shaders"); }

fs::path find_shader_file(const std::string& name, const std::vector<fs::path>& dirs) {
    std::error_code ec;
    for (const auto& dir : dirs)
        if (fs::is_regular_file(dir / name, ec)) return dir / name;
    std::string looked;
    for (const auto& dir : dirs) looked += "\n  " + (dir / name).string();
    if (looked.empty())
        looked = "\n  (no shader folder exists; set NBODY_SHADER_DIR or run from the build tree)";
    throw ShaderError("shader '" + name + "' not found; looked in:" + looked);
}

std::string format_shader_log(const std::string& log, const std::vector<std::string>& files) {
    // Mesa: "0:12(5): error: ...". NVIDIA: "0(12) : error C0000: ...". AMD: "ERROR: 0:12: ...".
    static const std::regex mesa(R"(^\s*(\d+):(\d+)\(\d+\):\s*(.*)$)");
    static const std::regex nvidia(R"(^\s*(\d+)\((\d+)\)\s*:\s*(.*)$)");
    static const std::regex amd(R"(^\s*(ERROR|WARNING):\s*(\d+):(\d+):\s*(.*)$)");
    auto name = [&](const std::string& source) {
        const std::size_t k = std::stoul(source);
        return k < files.size() ? files[k] : files.empty() ? std::string("shader") : files[0];
    };
    std::istringstream in(log);
    std::string line, out;
    std::smatch m;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        if (std::regex_match(line, m, mesa) || std::regex_match(line, m, nvidia))
            out += name(m[1].str()) + ":" + m[2].str() + ": " + m[3].str() + "\n";
        else if (std::regex_match(line, m, amd))
            out += name(m[2].str()) + ":" + m[3].str() + ": " + m[1].str() + ": " + m[4].str() + "\n";
        else
            out += (files.empty() ? std::string("shader") : files[0]) + ": " + line + "\n";
    }
    if (!out.empty()) out.pop_back();
    return out;
}

std::string format_shader_log(const std::string& log, const std::string& file) {
    return format_shader_log(log, std::vector<std::string>{file});
}

std::string expand_shader_includes(const std::string& text, const std::vector<fs::path>& dirs,
                                   std::vector<std::string>& files) {
    static const std::regex include_line(R"re(^\s*#\s*include\s+"([^"]+)"\s*$)re");
    std::istringstream in(text);
    std::string line, out;
    std::smatch m;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (!std::regex_match(line, m, include_line)) {
            out += line + "\n";
            continue;
        }
        const fs::path path = find_shader_file(m[1].str(), dirs);
        const std::string included = read_text(path);
        static const std::regex nested(R"((^|\n)\s*#\s*include\s)");
        if (std::regex_search(included, nested))
            throw ShaderError("shader file " + path.string() + " includes another file; only one level is supported");
        files.push_back(path.string());
        out += "#line 1 " + std::to_string(files.size()) + "\n" + included;
        if (!included.empty() && included.back() != '\n') out += "\n";
        out += "#line " + std::to_string(number + 1) + " 0\n";
    }
    return out;
}

ShaderProgram ShaderProgram::load(std::initializer_list<std::string> names,
                                  const std::vector<fs::path>& dirs) {
    return load_with("", names, dirs);
}

ShaderProgram ShaderProgram::load_with(const std::string& preamble, std::initializer_list<std::string> names,
                                       const std::vector<fs::path>& dirs) {
    std::vector<ShaderSource> sources;
    for (const auto& name : names) {
        const GLenum stage = stage_from_name(name);
        const fs::path path = find_shader_file(name, dirs);
        std::vector<std::string> included;
        std::string text = expand_shader_includes(read_text(path), dirs, included);
        if (!preamble.empty()) {
            // After the #version line, then back to the file's own line numbers.
            const std::size_t version_end = text.find('\n');
            if (version_end != std::string::npos)
                text.insert(version_end + 1, preamble + "\n#line 2 0\n");
        }
        sources.push_back({stage, std::move(text), path.string(), std::move(included)});
    }
    return from_sources(sources);
}

ShaderProgram ShaderProgram::from_sources(const std::vector<ShaderSource>& sources) {
    if (sources.empty()) throw ShaderError("a shader program needs at least one stage");
    std::vector<GlShader> shaders;
    std::string errors;
    for (const auto& src : sources) {
        GlShader shader = create_shader(src.stage);
        const char* text = src.text.c_str();
        glShaderSource(shader.id(), 1, &text, nullptr);
        glCompileShader(shader.id());
        GLint ok = GL_FALSE;
        glGetShaderiv(shader.id(), GL_COMPILE_STATUS, &ok);
        if (!ok) {
            // Keep going: one message listing every broken file saves an edit-run cycle.
            errors +=
                (errors.empty() ? "" : "\n") + format_shader_log(info_log(shader.id(), false), source_files(src));
            continue;
        }
        shaders.push_back(std::move(shader));
    }
    if (!errors.empty()) throw ShaderError("shader compilation failed:\n" + errors);

    ShaderProgram result;
    result.program_ = create_program();
    const GLuint program = result.program_.id();
    for (const auto& s : shaders) glAttachShader(program, s.id());
    glLinkProgram(program);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    for (const auto& s : shaders) glDetachShader(program, s.id());
    if (!ok) {
        std::string files;
        for (const auto& src : sources) files += (files.empty() ? "" : ", ") + src.file;
        throw ShaderError("linking shaders " + files + " failed:\n" + info_log(program, true));
    }
    NBODY_GL_CHECK_STATE("building a shader program");
    return result;
}

void ShaderProgram::use() const { glUseProgram(program_.id()); }

GLint ShaderProgram::uniform(const char* name) const {
    auto it = uniform_cache_.find(name);
    if (it != uniform_cache_.end()) return it->second;
    const GLint location = glGetUniformLocation(program_.id(), name);
    uniform_cache_.emplace(name, location);
    return location;
}

void ShaderProgram::set(const char* name, int v) const { glProgramUniform1i(id(), uniform(name), v); }
void ShaderProgram::set(const char* name, unsigned v) const { glProgramUniform1ui(id(), uniform(name), v); }
void ShaderProgram::set(const char* name, float v) const { glProgramUniform1f(id(), uniform(name), v); }
void ShaderProgram::set(const char* name, const glm::vec2& v) const {
    glProgramUniform2fv(id(), uniform(name), 1, glm::value_ptr(v));
}
void ShaderProgram::set(const char* name, const glm::ivec2& v) const {
    glProgramUniform2iv(id(), uniform(name), 1, glm::value_ptr(v));
}
void ShaderProgram::set(const char* name, const int* v, int count) const {
    glProgramUniform1iv(id(), uniform(name), count, v);
}
void ShaderProgram::set(const char* name, const float* v, int count) const {
    glProgramUniform1fv(id(), uniform(name), count, v);
}
void ShaderProgram::set(const char* name, const glm::vec3& v) const {
    glProgramUniform3fv(id(), uniform(name), 1, glm::value_ptr(v));
}
void ShaderProgram::set(const char* name, const glm::vec4& v) const {
    glProgramUniform4fv(id(), uniform(name), 1, glm::value_ptr(v));
}
void ShaderProgram::set(const char* name, const glm::mat4& v) const {
    glProgramUniformMatrix4fv(id(), uniform(name), 1, GL_FALSE, glm::value_ptr(v));
}
void ShaderProgram::set(const char* name, const glm::vec3* v, int count) const {
    glProgramUniform3fv(id(), uniform(name), count, glm::value_ptr(v[0]));
}

}  // namespace nbody::render
