#include "free_heap.h"

#include <cstdlib>  // the first C library header, which defines __GLIBC__ where the library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tscope::trace {

void return_free_heap_to_system() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace tscope::trace
