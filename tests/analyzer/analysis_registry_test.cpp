// The analysis registry against what users and CI read: every finding kind an analysis declares is
// in docs/analyzer.md's JSON schema and every documented single-trace kind is declared, and on each
// real trace every analysis emits only the kinds and sections it declares.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "shared_trace.h"
#include "tscope/analyzer/analysis.h"
#include "tscope/trace/trace_io.h"

namespace tscope::analyzer {
namespace {

std::set<std::string> declared_kinds() {
  std::set<std::string> kinds;
  for (const Analysis* analysis : analyses())
    kinds.insert(analysis->finding_kinds.begin(), analysis->finding_kinds.end());
  return kinds;
}

struct DocumentedKinds {
  std::set<std::string> single_trace;
  std::set<std::string> several_ranks;
};

// The quoted names of the schema's `"kind": "input_bound" | ...` alternatives, up to
// `"severity"`; those after "(several ranks)" belong to the multi-rank report.
DocumentedKinds documented_kinds() {
  std::ifstream file(std::filesystem::path(TSCOPE_SOURCE_DIR) / "docs" / "analyzer.md");
  const std::string doc{std::istreambuf_iterator<char>(file), {}};
  const std::size_t start = doc.find("\"kind\": \"input_bound\"");
  const std::size_t end = doc.find("\"severity\"", start);
  if (start == std::string::npos || end == std::string::npos) return {};
  const std::string list = doc.substr(start + 7, end - start - 7);  // past `"kind":`
  const std::size_t ranks = list.find("(several ranks)");
  DocumentedKinds kinds;
  for (std::size_t open = list.find('"'); open != std::string::npos; open = list.find('"', open)) {
    const std::size_t close = list.find('"', open + 1);
    (open < ranks ? kinds.single_trace : kinds.several_ranks)
        .insert(list.substr(open + 1, close - open - 1));
    open = close + 1;
  }
  return kinds;
}

TEST(AnalysisRegistryTest, NamesAndSectionKeysAreUnique) {
  std::set<std::string_view> names;
  std::set<std::string_view> keys;
  for (const Analysis* analysis : analyses()) {
    EXPECT_TRUE(names.insert(analysis->name).second) << analysis->name;
    for (const std::string_view key : analysis->section_keys)
      EXPECT_TRUE(keys.insert(key).second) << key;
    EXPECT_EQ(find_analysis(analysis->name), analysis);
  }
  EXPECT_EQ(find_analysis("no such analysis"), nullptr);
}

TEST(AnalysisRegistryTest, EveryDeclaredKindIsDocumented) {
  const DocumentedKinds documented = documented_kinds();
  ASSERT_FALSE(documented.single_trace.empty()) << "no kind list in docs/analyzer.md";
  for (const std::string& kind : declared_kinds())
    EXPECT_TRUE(documented.single_trace.contains(kind)) << kind << " is not in docs/analyzer.md";
}

TEST(AnalysisRegistryTest, EveryDocumentedSingleTraceKindIsDeclared) {
  const std::set<std::string> declared = declared_kinds();
  for (const std::string& kind : documented_kinds().single_trace)
    EXPECT_TRUE(declared.contains(kind)) << kind << " is documented but no analysis declares it";
}

class RealTraceAnalyses : public ::testing::TestWithParam<const char*> {};

TEST_P(RealTraceAnalyses, EmitOnlyTheKindsAndSectionsTheyDeclare) {
  const auto path = tscope::testing::shared_data_path(std::string("traces/") + GetParam());
  TSCOPE_REQUIRE_FILE(path);
  const trace::Trace trace = trace::load_trace(path);
  const AnalysisContext context(trace, {});
  for (const Analysis* analysis : analyses()) {
    const AnalysisOutput output = analysis->run(context);
    for (const Finding& finding : output.findings) {
      EXPECT_NE(
          std::find(analysis->finding_kinds.begin(), analysis->finding_kinds.end(), finding.kind),
          analysis->finding_kinds.end())
          << analysis->name << " emitted undeclared kind " << finding.kind;
    }
    for (const Section& section : output.sections) {
      EXPECT_NE(
          std::find(analysis->section_keys.begin(), analysis->section_keys.end(), section.key),
          analysis->section_keys.end())
          << analysis->name << " returned undeclared section " << section.key;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    SharedTraces, RealTraceAnalyses,
    ::testing::Values("kineto/hta_critical_path_alexnet_a100.json.gz",
                      "kineto/hta_cuda_event_sync_multi_stream_a100.json.gz",
                      "kineto/hta_nccl_data_a100_rank0_of2.json.gz",
                      "kineto/hta_step_based_gpu_user_annotation_gp100.json.gz",
                      "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz",
                      "kineto/tracelens_mi210_gpu_only.json.gz",
                      "kineto/tracelens_mi300x_torch_compile_triton.json.gz",
                      "kineto/tracelens_mi300x_vllm_piecewise_hipgraph_replay.json.gz",
                      "nsys/nsysai_h100x2_sp2_fa3_1s_window_nvtx.sqlite",
                      "nsys/pipit_saxpy_mpi_cuda_perlmutter_a100.sqlite",
                      "multirank/sampled_rank-0.json.gz"));

}  // namespace
}  // namespace tscope::analyzer
