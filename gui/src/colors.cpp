#include "tscope/gui/colors.h"

namespace tscope::gui {

Color category_color(trace::Category category) {
  using trace::Category;
  switch (category) {
    case Category::kCpuOp:
      return rgba(86, 156, 214);
    case Category::kUserAnnotation:
      return rgba(156, 120, 220);
    case Category::kGpuUserAnnotation:
      return rgba(180, 140, 240);
    case Category::kPythonFunction:
      return rgba(120, 170, 150);
    case Category::kKernel:
      return rgba(98, 200, 98);
    case Category::kMemcpy:
      return rgba(230, 150, 60);
    case Category::kMemset:
      return rgba(200, 170, 90);
    case Category::kRuntimeApi:
      return rgba(150, 190, 230);
    case Category::kDriverApi:
      return rgba(130, 170, 210);
    case Category::kSynchronization:
      return rgba(220, 80, 80);
    case Category::kDataLoaderLoad:
      return rgba(90, 200, 200);
    case Category::kDataWait:
      return rgba(240, 110, 150);
    case Category::kOptimizer:
      return rgba(210, 200, 90);
    case Category::kStep:
      return rgba(110, 110, 180);
    case Category::kCommunication:
      return rgba(200, 120, 60);
    case Category::kOther:
      return rgba(160, 160, 160);
  }
  return rgba(160, 160, 160);
}

Color copy_color(trace::CopyDirection direction) {
  using trace::CopyDirection;
  switch (direction) {
    case CopyDirection::kHostToDevice:
      return rgba(230, 150, 60);
    case CopyDirection::kDeviceToHost:
      return rgba(230, 110, 40);
    case CopyDirection::kDeviceToDevice:
      return rgba(240, 190, 80);
    case CopyDirection::kHostToHost:
      return rgba(200, 140, 100);
    case CopyDirection::kPeerToPeer:
      return rgba(250, 170, 120);
    case CopyDirection::kUnknown:
      return category_color(trace::Category::kMemcpy);
  }
  return category_color(trace::Category::kMemcpy);
}

}  // namespace tscope::gui
