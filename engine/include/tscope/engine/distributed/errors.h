#pragma once
// Typed errors of the distributed layer: a collective the group cannot run (bad arguments, a
// tensor on the wrong device), a failed MPI or NCCL call, a backend this build lacks.

#include "tscope/engine/errors.h"

namespace tscope::engine::distributed {

// A collective refused or failed; the message names the collective and what was wrong (for MPI
// and NCCL failures: the call, its error code and the library's error string).
class DistributedError : public EngineError {
 public:
  using EngineError::EngineError;
};

// The backend asked for was not built (no MPI or no NCCL found at configure time).
class BackendUnavailable : public DistributedError {
 public:
  using DistributedError::DistributedError;
};

}  // namespace tscope::engine::distributed
