// Finding the traces of a run and reducing each rank on its own, a bounded number at a time, so
// memory holds at most `jobs` traces however many ranks there are.

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "tscope/analyzer/multirank.h"
#include "tscope/trace/trace_io.h"

namespace tscope::analyzer {
namespace {

bool is_trace_file_name(const std::string& name) {
  for (const char* ending : {".tsc", ".json", ".json.gz", ".sqlite"}) {
    if (name.ends_with(ending)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::filesystem::path> list_trace_files(
    const std::vector<std::filesystem::path>& inputs) {
  std::vector<std::filesystem::path> files;
  for (const std::filesystem::path& input : inputs) {
    if (!std::filesystem::is_directory(input)) {
      files.push_back(input);
      continue;
    }
    std::vector<std::filesystem::path> found;
    for (const auto& entry : std::filesystem::directory_iterator(input)) {
      if (entry.is_regular_file() && is_trace_file_name(entry.path().filename().string())) {
        found.push_back(entry.path());
      }
    }
    if (found.empty()) {
      throw AnalyzerError(input.string() +
                          ": no trace files (.tsc, .json, .json.gz, .sqlite) in this folder");
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

std::vector<RankSummary> summarize_trace_files(const std::vector<std::filesystem::path>& files,
                                               const AnalysisOptions& options, unsigned jobs) {
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min<unsigned>(jobs, static_cast<unsigned>(std::max<std::size_t>(files.size(), 1)));
  std::vector<RankSummary> summaries(files.size());
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  std::size_t first_error_index = files.size();
  // The error of the first file in the given order, so a failing set reports the same each time.
  const auto keep_error = [&](std::size_t index, std::exception_ptr error) {
    const std::lock_guard lock(error_mutex);
    if (index < first_error_index) {
      first_error_index = index;
      first_error = std::move(error);
    }
  };
  const auto work = [&] {
    for (std::size_t index = next++; index < files.size(); index = next++) {
      try {
        // The trace lives only inside this call: loaded, reduced, freed.
        summaries[index] =
            summarize_rank(trace::load_trace(files[index]), files[index].string(), options);
      } catch (const AnalyzerError& error) {
        keep_error(index, std::make_exception_ptr(
                              AnalyzerError(files[index].string() + ": " + error.what())));
      } catch (...) {
        keep_error(index, std::current_exception());
      }
    }
  };
  std::vector<std::thread> workers;
  for (unsigned worker = 1; worker < jobs; ++worker)
    workers.emplace_back(work);
  work();
  for (std::thread& worker : workers)
    worker.join();
  if (first_error) std::rethrow_exception(first_error);
  return summaries;
}

}  // namespace tscope::analyzer
