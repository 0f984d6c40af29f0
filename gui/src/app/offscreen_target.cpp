#define GL_GLEXT_PROTOTYPES
#include "offscreen_target.h"

#include <GL/gl.h>
#include <GL/glext.h>
#include <stb_image_write.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tscope/gui/viewer.h"

namespace tscope::gui::app {

OffscreenTarget::OffscreenTarget(int width, int height) : width_(width), height_(height) {
  glGenFramebuffers(1, &framebuffer_);
  glGenRenderbuffers(1, &color_);
  glBindRenderbuffer(GL_RENDERBUFFER, color_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  if (status != GL_FRAMEBUFFER_COMPLETE) {
    glDeleteFramebuffers(1, &framebuffer_);
    glDeleteRenderbuffers(1, &color_);
    throw ViewerError("offscreen framebuffer of " + std::to_string(width) + "x" +
                      std::to_string(height) + " is incomplete (status " + std::to_string(status) +
                      ")");
  }
}

OffscreenTarget::~OffscreenTarget() {
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteFramebuffers(1, &framebuffer_);
  glDeleteRenderbuffers(1, &color_);
}

void OffscreenTarget::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
}

void OffscreenTarget::write_png(const std::filesystem::path& path) const {
  const auto row_bytes = static_cast<std::size_t>(width_) * 3;
  std::vector<std::uint8_t> pixels(row_bytes * static_cast<std::size_t>(height_));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer_);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width_, height_, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  if (const GLenum error = glGetError(); error != GL_NO_ERROR) {
    throw ViewerError("reading back the offscreen frame failed (OpenGL error " +
                      std::to_string(error) + ")");
  }
  // OpenGL's first row is the bottom one; PNG's is the top.
  std::vector<std::uint8_t> row(row_bytes);
  for (int top = 0, bottom = height_ - 1; top < bottom; ++top, --bottom) {
    std::uint8_t* upper = pixels.data() + static_cast<std::size_t>(top) * row_bytes;
    std::uint8_t* lower = pixels.data() + static_cast<std::size_t>(bottom) * row_bytes;
    std::memcpy(row.data(), upper, row_bytes);
    std::memcpy(upper, lower, row_bytes);
    std::memcpy(lower, row.data(), row_bytes);
  }
  if (stbi_write_png(path.c_str(), width_, height_, 3, pixels.data(),
                     static_cast<int>(row_bytes)) == 0) {
    throw ViewerError("cannot write the screenshot " + path.string());
  }
}

}  // namespace tscope::gui::app
