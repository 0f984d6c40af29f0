#pragma once
// How much of a core each host span had: the recorded host's CPUs shared among the threads busy
// beside it. A data-loader worker decoding images beside the training thread takes a core from
// it once there are more busy threads than CPUs, and the training thread's ops run slower by that
// share. The what-if replay takes a span's own time as measured at its share and gives back what
// an edit frees: with the loader's work removed, the training thread's ops run at the share they
// would have alone.
//
// Busy threads, per thread: its outermost spans, less the waits inside them (waits for a batch,
// synchronizations, collective waits: the thread sleeps or hands the core back). An operator of
// our engine on the main thread keeps as many threads busy as the engine runs (its intra-op pool
// and BLAS). A thread the trace does not show (another process, the engine's pool between ops)
// is not seen: the model counts what the trace records.

#include <cstdint>
#include <utility>
#include <vector>

#include "tscope/analyzer/analysis_context.h"

namespace tscope::analyzer {

class CpuContention {
 public:
  explicit CpuContention(const AnalysisContext& context);

  // Whether the trace records the host's CPU count (our recorder's host_cpus); without it every
  // factor is 1.
  bool modelled() const { return cpus_ > 0; }
  double cpus() const { return cpus_; }
  // The threads an engine operator keeps busy.
  double engine_threads() const { return engine_threads_; }

  // The data loaders' work in a replay: `share` of the measured, at the measured times; or, with
  // `threads` >= 0, that many loader threads busy throughout (a workers=N edit).
  struct Loaders {
    double share = 1;
    double threads = -1;
  };

  // The factor on a host span's own time with the loaders' work as `then`: its measured share of
  // a core over its share then. 1 where nothing changes; below 1 where the edit frees cores the
  // span waited for, above 1 where it takes more.
  double own_time_factor(trace::EventRef span, Loaders then) const;

  // The names of the loader threads' loads, each with its summed measured time: what an edit of
  // the loads (`op:load batch*0.5`) leaves of the loaders' work is their time-weighted factor.
  const std::vector<std::pair<trace::StringId, double>>& load_names() const { return load_names_; }

  // A loader thread's time per batch had it a core to itself: the mean of its measured loads,
  // each at the share of a core it had (as measured where the CPUs are not known). 0 when the
  // trace shows no loader thread.
  double solo_load_ns() const { return solo_load_ns_; }
  // The share of a core each of `busy` threads gets; a whole one where the CPUs are not known.
  double share(double busy) const { return cpus_ <= 0 || busy <= cpus_ ? 1 : cpus_ / busy; }

 private:
  // A step function of time, kept as its integral at each change.
  struct Level {
    std::vector<trace::TimeNs> times;  // sorted
    std::vector<double> value;         // from times[i] on
    std::vector<double> integral;      // from times[0] to times[i]
    void build(std::vector<std::pair<trace::TimeNs, double>>& changes);
    double average(trace::TimeNs begin, trace::TimeNs end) const;
    double integral_to(trace::TimeNs time) const;
  };

  void add_load_time(trace::StringId name, double ns);

  const trace::Trace* trace_;
  std::uint32_t main_thread_;
  double cpus_ = 0;
  double engine_threads_ = 1;
  double solo_load_ns_ = 0;
  std::vector<std::pair<trace::StringId, double>> load_names_;
  Level busy_;     // threads busy
  Level loaders_;  // of them, data-loader workers loading a batch
};

}  // namespace tscope::analyzer
