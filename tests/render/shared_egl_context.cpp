#include "shared_egl_context.hpp"

#include <exception>
#include <memory>

namespace nbody::render {

EglContext* shared_context(std::string* why_not) {
    static std::unique_ptr<EglContext> context;
    static std::string error;
    static bool tried = false;
    if (!tried) {
        tried = true;
        try {
            context = std::make_unique<EglContext>();
        } catch (const std::exception& e) {
            error = e.what();
        }
    }
    if (why_not) *why_not = error;
    if (context) context->make_current();
    return context.get();
}

}  // namespace nbody::render
