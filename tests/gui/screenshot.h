#pragma once
// Screenshots as a user would see them: a private Xvfb server for `tscope view --screenshot`
// (started once per test binary, stopped at exit), and the PNG read back for pixel checks.

#include <gtest/gtest.h>
#include <signal.h>
#include <stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

namespace tscope::gui::testing {

class VirtualDisplay {
 public:
  // Starts Xvfb on a free display (it reports the number through -displayfd) and points DISPLAY
  // at it; `available()` is false when Xvfb is missing or fails to start.
  VirtualDisplay() {
    int report[2];
    if (pipe(report) != 0) return;
    const std::string fd = std::to_string(report[1]);
    server_ = fork();
    if (server_ == 0) {
      close(report[0]);
      execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1920x1080x24", "-nolisten",
             "tcp", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(report[1]);
    std::string number;
    char digit = 0;
    while (server_ > 0 && read(report[0], &digit, 1) == 1 && digit != '\n')
      number += digit;
    close(report[0]);
    if (number.empty()) return;
    setenv("DISPLAY", (":" + number).c_str(), 1);
    available_ = true;
  }
  ~VirtualDisplay() {
    if (server_ <= 0) return;
    kill(server_, SIGTERM);
    waitpid(server_, nullptr, 0);
  }
  VirtualDisplay(const VirtualDisplay&) = delete;
  VirtualDisplay& operator=(const VirtualDisplay&) = delete;

  bool available() const { return available_; }

  static const VirtualDisplay& shared() {
    static const VirtualDisplay display;
    return display;
  }

 private:
  pid_t server_ = -1;
  bool available_ = false;
};

// Skips the calling test when no virtual X server could be started.
#define TSCOPE_REQUIRE_DISPLAY()                                                   \
  do {                                                                             \
    if (!::tscope::gui::testing::VirtualDisplay::shared().available()) {           \
      GTEST_SKIP() << "cannot start Xvfb: screenshots need the xvfb package (see " \
                      "scripts/install-deps.sh)";                                  \
    }                                                                              \
  } while (0)

struct Screenshot {
  int width = 0;
  int height = 0;
  std::unique_ptr<std::uint8_t, decltype(&stbi_image_free)> pixels{nullptr, &stbi_image_free};

  // 0xAABBGGRR with alpha 255, the packing of tscope::gui::Color.
  std::uint32_t pixel(int x, int y) const {
    const std::uint8_t* at = pixels.get() + (static_cast<std::size_t>(y) * width + x) * 3;
    return 0xff000000u | static_cast<std::uint32_t>(at[2]) << 16 |
           static_cast<std::uint32_t>(at[1]) << 8 | at[0];
  }
};

inline Screenshot read_png(const std::filesystem::path& path) {
  Screenshot image;
  int channels = 0;
  image.pixels.reset(stbi_load(path.c_str(), &image.width, &image.height, &channels, 3));
  return image;
}

}  // namespace tscope::gui::testing
