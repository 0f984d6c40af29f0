// The multi-rank analysis over 64 ranks generated from a real one (rank 0 of the Kineto pair in
// ../shared): each copy has its own rank, a host of 8 ranks with its own clock offset, and a
// per-rank delay, written as .tsc files to a temporary folder. Times `tscope analyze` of the
// folder (list, load and reduce each rank, the cross-rank pass) against loading the 64 traces
// alone, and reports the peak memory beside the size of one loaded rank.

#include <benchmark/benchmark.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "process_memory.h"
#include "tscope/analyzer/multirank.h"
#include "tscope/trace/trace_io.h"
#include "tscope/trace/tsc_writer.h"

namespace {

using namespace tscope;
using tscope::bench::reset_peak_resident;
using tscope::bench::status_bytes;

constexpr int kRanks = 64;
constexpr int kRanksPerHost = 8;

// `source` as rank `rank` of kRanks, every event moved by `shift` (one rank's clock never
// reorders).
void write_rank(const trace::Trace& source, int rank, trace::TimeNs shift,
                const std::filesystem::path& path) {
  trace::TscWriter writer(path);
  // Interning in id order keeps the source's string ids.
  for (std::size_t id = 1; id < source.strings().size(); ++id)
    writer.intern(source.strings().view(static_cast<trace::StringId>(id)));
  for (const trace::Process& process : source.processes())
    writer.add_process(process);
  for (const trace::Track& track : source.tracks())
    writer.add_track(track.info());
  for (std::uint32_t track = 0; track < source.tracks().size(); ++track) {
    const trace::Track& from = source.track(track);
    for (std::uint32_t span = 0; span < from.spans().size(); ++span) {
      trace::SpanRecord record = source.span_record(track, span);
      record.start += shift;
      record.end += shift;
      writer.add_span(track, record);
    }
    for (std::size_t sample = 0; sample < from.counters().size(); ++sample) {
      writer.add_counter_sample(track, from.counters().time[sample] + shift,
                                from.counters().value[sample]);
    }
  }
  for (const trace::Flow& flow : source.flows())
    writer.add_flow(flow);
  for (const auto& [key, value] : source.metadata().values)
    writer.set_metadata_value(key, value);
  writer.set_metadata_value("rank", std::to_string(rank));
  writer.set_metadata_value("world_size", std::to_string(kRanks));
  writer.set_metadata_value("host", "node" + std::to_string(rank / kRanksPerHost));
  writer.set_metadata_value("run_id", "bench-64");
  writer.close();
}

struct GeneratedRanks {
  std::filesystem::path folder;
  std::uint64_t one_rank_bytes = 0;  // resident size of one loaded rank
  std::size_t spans_per_rank = 0;
};

const GeneratedRanks& generated_ranks() {
  static const GeneratedRanks ranks = [] {
    GeneratedRanks made;
    made.folder = std::filesystem::temp_directory_path() / "tscope_bench_64_ranks";
    std::filesystem::remove_all(made.folder);
    std::filesystem::create_directories(made.folder);
    const std::uint64_t before = status_bytes("VmRSS");
    const trace::Trace real = trace::load_trace(std::filesystem::path(TSCOPE_SHARED_DATA_DIR) /
                                                "traces/multirank/sampled_rank-0.json.gz");
    made.one_rank_bytes = status_bytes("VmRSS") - before;
    made.spans_per_rank = real.counts().spans;
    for (int rank = 0; rank < kRanks; ++rank) {
      // A clock offset per host (milliseconds apart) and a per-rank delay of up to 0.6 ms.
      const trace::TimeNs shift = (rank / kRanksPerHost) * 3'000'000 + (rank * 37 % 17) * 37'000;
      write_rank(real, rank, shift, made.folder / ("rank-" + std::to_string(rank) + ".tsc"));
    }
    return made;
  }();
  return ranks;
}

void BM_AnalyzeRankFolder(benchmark::State& state) {
  const GeneratedRanks& ranks = generated_ranks();
  reset_peak_resident();
  const std::uint64_t resident_before = status_bytes("VmRSS");
  std::size_t matched = 0;
  for (auto _ : state) {
    const analyzer::MultiRankReport report =
        analyzer::analyze_ranks(analyzer::summarize_trace_files(
            analyzer::list_trace_files({ranks.folder}), {}, static_cast<unsigned>(state.range(0))));
    matched = report.collectives.size();
    benchmark::DoNotOptimize(matched);
  }
  const std::uint64_t peak_extra = status_bytes("VmHWM") - resident_before;
  state.counters["ranks"] = kRanks;
  state.counters["spans_per_rank"] = static_cast<double>(ranks.spans_per_rank);
  state.counters["matched"] = static_cast<double>(matched);
  state.counters["one_rank_MiB"] = static_cast<double>(ranks.one_rank_bytes) / (1 << 20);
  state.counters["peak_MiB"] = static_cast<double>(peak_extra) / (1 << 20);
  state.counters["peak_over_one_rank"] =
      static_cast<double>(peak_extra) / static_cast<double>(ranks.one_rank_bytes);
}
BENCHMARK(BM_AnalyzeRankFolder)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

// The reference: loading the 64 traces one after another and nothing else.
void BM_LoadRankFolder(benchmark::State& state) {
  const GeneratedRanks& ranks = generated_ranks();
  for (auto _ : state) {
    std::uint64_t spans = 0;
    for (const auto& path : analyzer::list_trace_files({ranks.folder}))
      spans += trace::load_trace(path).counts().spans;
    benchmark::DoNotOptimize(spans);
  }
}
BENCHMARK(BM_LoadRankFolder)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
