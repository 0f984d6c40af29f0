#include "tscope/engine/storage.h"

namespace tscope::engine {

Storage::Storage(std::size_t bytes, Allocator& allocator)
    : allocator_(allocator), bytes_(bytes), data_(allocator.allocate(bytes)) {}

Storage::~Storage() {
  allocator_.deallocate(data_, bytes_);
}

}  // namespace tscope::engine
