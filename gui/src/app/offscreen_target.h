#pragma once
// An OpenGL framebuffer object to render a screenshot into: a hidden window's default
// framebuffer has no defined pixels, an FBO always does.

#include <filesystem>

namespace tscope::gui::app {

class OffscreenTarget {
 public:
  OffscreenTarget(int width, int height);
  ~OffscreenTarget();
  OffscreenTarget(const OffscreenTarget&) = delete;
  OffscreenTarget& operator=(const OffscreenTarget&) = delete;

  void bind() const;
  // Reads the pixels back and writes them as an RGB PNG, top row first.
  void write_png(const std::filesystem::path& path) const;

 private:
  int width_;
  int height_;
  unsigned framebuffer_ = 0;
  unsigned color_ = 0;
};

}  // namespace tscope::gui::app
