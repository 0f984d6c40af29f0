#pragma once
// Trace file names for one trace per rank: `run-%r.tsc` under `mpirun -np N` becomes run-0.tsc,
// run-1.tsc, ... %r is the rank the launcher put in the environment, %p a process id, %h the host
// name, %% a percent sign. `tscope record -o` and the example's --trace both expand them.

#include <optional>
#include <string>
#include <string_view>

namespace tscope::profiler {

// The environment variables launchers give each rank, in the order they are trusted: OpenMPI,
// MPICH/Intel MPI (PMI), PMIx, Slurm, torchrun.
inline constexpr std::string_view kLauncherRankVariables[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                                              "PMIX_RANK", "SLURM_PROCID", "RANK"};

// This process's rank from the first of kLauncherRankVariables that is set; nullopt when none
// is. Throws ProfilerError when that variable is not a non-negative integer.
std::optional<int> launcher_rank();

struct OutputNameFields {
  std::optional<int> rank;  // for %r
  long pid = 0;             // for %p
  std::string host;         // for %h
};

// The fields of the calling process: launcher_rank(), getpid(), gethostname().
OutputNameFields this_process_output_fields();

// `pattern` with %r, %p, %h and %% replaced. Throws ProfilerError on any other %-sequence, and
// on %r when `fields` has no rank (so that the ranks of an unrecognised launcher never write
// into one file).
std::string expand_output_name(std::string_view pattern, const OutputNameFields& fields);

}  // namespace tscope::profiler
