#pragma once
// Hands the heap's free pages back to the system. glibc keeps freed blocks for reuse, so the
// buffers an import grew and dropped (input windows, caches, columns outgrown while events
// arrived) would otherwise stay resident beside the trace for as long as the process runs. Does
// nothing where the C library is not glibc.

namespace tscope::trace {

void return_free_heap_to_system();

}  // namespace tscope::trace
