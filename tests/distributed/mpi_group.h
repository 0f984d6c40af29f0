#pragma once
// The MPI world group the tests of one mpirun share: MPI starts once per process.

#include <gtest/gtest.h>

#include <memory>

#include "tscope/engine/distributed/process_group.h"

namespace tscope::engine::distributed {

inline ProcessGroup& world_group() {
  static const std::unique_ptr<ProcessGroup> group = make_mpi_process_group();
  return *group;
}

}  // namespace tscope::engine::distributed

// These tests compare what the ranks computed together; a world of one has nothing to compare.
#define TSCOPE_REQUIRE_TWO_RANKS()                                                             \
  do {                                                                                         \
    if (::tscope::engine::distributed::world_group().world_size() != 2) {                      \
      GTEST_SKIP() << "run under `mpirun -np 2` (CTest does); this world has "                 \
                   << ::tscope::engine::distributed::world_group().world_size() << " rank(s)"; \
    }                                                                                          \
  } while (0)
