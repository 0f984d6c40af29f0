// libFuzzer entry point for the command line: an input is up to 16 arguments, one per line, given
// to the same tscope_main that `tscope` runs. Whatever the arguments, tscope must return 0, 1 or 2
// (bad arguments and bad input are 2) and never crash, throw out of tscope_main or report an
// internal error (3).
//
// The commands run for real inside a scratch folder holding small real inputs (cli_files/) under
// fixed names, so arguments can name a trace, benchmark results or a policy file. To keep the
// fuzzer from running programs or touching files outside the scratch folder, inputs that name
// `record`, `doctor` or `view`, or hold a '/' or ".." anywhere, are skipped: ".." alone names the
// folder above the scratch folder, and `analyze ..` imported every trace in /tmp (a 665 MB one
// took a long run past libFuzzer's 10 s timeout).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "scratch_folder.h"
#include "tscope_main.h"

namespace {

constexpr std::size_t kMaxArguments = 16;

// What a folder holds: each entry's name, size and time of last change.
using FolderState =
    std::map<std::string, std::pair<std::uintmax_t, std::filesystem::file_time_type>>;

FolderState state_of(const std::filesystem::path& folder) {
  FolderState state;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    const std::uintmax_t size = entry.is_regular_file(error) ? entry.file_size(error) : 0;
    state[entry.path().filename().string()] = {size, entry.last_write_time(error)};
  }
  return state;
}

// The folder the commands run in, holding only the fixtures (a scratch folder of this process's,
// removed at exit). It is made again only after a command changed it (a file written, replaced or
// removed): most commands only read, and copying the fixtures before every input made the fuzzer
// 1.2 to 1.8 times slower (replaying a grown corpus; fuzzing from the seeds).
class FixtureFolder {
 public:
  FixtureFolder() : pristine_(make()) {}

  const std::filesystem::path& path() const { return folder_.path(); }
  void restore() {
    if (state_of(path()) != pristine_) pristine_ = make();
  }

 private:
  // A signal from an earlier command (a timer, a child's exit) can interrupt the copy (EINTR,
  // seen in a 60 s run): the folder is made again until it is whole.
  FolderState make() const {
    std::error_code error;
    for (int attempt = 0; attempt < 100; ++attempt) {
      error.clear();
      std::filesystem::remove_all(path(), error);
      if (!error) std::filesystem::create_directories(path(), error);
      if (!error) std::filesystem::copy(TSCOPE_CLI_FUZZ_FILES, path(), error);
      if (error != std::errc::interrupted) break;
    }
    if (error) throw std::filesystem::filesystem_error("cli fuzzer scratch folder", path(), error);
    return state_of(path());
  }

  tscope::testing::ScratchFolder folder_;
  FolderState pristine_;
};

// Runs one command in the scratch folder, so that what one input's command wrote cannot change
// what the next one does, and returns to the working folder after: libFuzzer reads its corpus and
// writes crash inputs by the relative paths it was given, and reads the corpus while it runs the
// inputs, so a folder left changed made it read every seed after the first as an empty input (and
// stop: "no interesting inputs were found").
int run_in_scratch_folder(int argc, const char* const* argv) {
  static FixtureFolder scratch;
  scratch.restore();
  const std::filesystem::path working_folder = std::filesystem::current_path();
  std::filesystem::current_path(scratch.path());
  const int code = tscope::cli::tscope_main(argc, argv);
  std::filesystem::current_path(working_folder);
  return code;
}

bool allowed(const std::string& argument) {
  return argument != "record" && argument != "doctor" && argument != "view" &&
         argument.find('/') == std::string::npos && argument.find("..") == std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> arguments{"tscope"};
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
  for (std::string line; std::getline(lines, line);) {
    // An argument ends at its first NUL, as main's argv would hold it: "record" followed by a NUL
    // and more bytes is `record` to tscope, and must be skipped like it.
    line.resize(std::char_traits<char>::length(line.c_str()));
    if (!allowed(line) || arguments.size() > kMaxArguments) return 0;
    arguments.push_back(line);
  }
  std::vector<const char*> argv;
  argv.reserve(arguments.size() + 1);
  for (const std::string& argument : arguments)
    argv.push_back(argument.c_str());
  argv.push_back(nullptr);

  // Messages are part of what is tested only through the exit code here; silence them.
  std::ostringstream sink;
  auto* const out = std::cout.rdbuf(sink.rdbuf());
  auto* const err = std::cerr.rdbuf(sink.rdbuf());
  const int code = run_in_scratch_folder(static_cast<int>(argv.size() - 1), argv.data());
  std::cout.rdbuf(out);
  std::cerr.rdbuf(err);
  if (code < 0 || code > 2) {
    std::cerr << "tscope_main returned " << code << "; its messages:\n" << sink.str();
    std::abort();
  }
  return 0;
}
