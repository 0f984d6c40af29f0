#pragma once
// Grad mode: whether ops record history on the calling thread, and the scope that turns it off.

namespace tscope::engine {

class GradMode {
 public:
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// Turns recording off on this thread until destroyed (evaluation, optimizer updates).
class NoGradGuard {
 public:
  NoGradGuard() : previous_(GradMode::is_enabled()) { GradMode::set_enabled(false); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;
  ~NoGradGuard() { GradMode::set_enabled(previous_); }

 private:
  bool previous_;
};

}  // namespace tscope::engine
