#include "tscope/gui/hit_test.h"

namespace tscope::gui {

const HitBox* box_at(const TimelineFrame& frame, float x, float y) {
  for (auto box = frame.boxes.rbegin(); box != frame.boxes.rend(); ++box) {
    if (x >= box->x0 && x < box->x1 && y >= box->y0 && y < box->y1) return &*box;
  }
  return nullptr;
}

}  // namespace tscope::gui
