#pragma once
// Waits for the GPU work of the process before CUPTI's final forced flush: a record of work still
// running comes back from that flush without its timestamps (cupti_activity.h says so), and
// synchronizing first lets it complete.

namespace tscope::profiler::cupti {

// Synchronizes every device whose primary context (the one the runtime API, and so the engine and
// PyTorch, use) is still active; a context already torn down at exit is left alone. Returns how
// many were synchronized. Never throws: without a driver or a device it synchronizes none.
int synchronize_active_devices() noexcept;

}  // namespace tscope::profiler::cupti
