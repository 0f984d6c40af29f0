// The GPU device table, the Tensor Core kernel classifier, the flops implied by op shapes, and the
// roofline and Tensor Core findings, on the real traces of ../shared and on small traces with
// known answers.

#include "tscope/analyzer/roofline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "real_traces.h"
#include "scratch_folder.h"
#include "synthetic_trace.h"
#include "test_data.h"
#include "tscope/analyzer/device_peaks.h"
#include "tscope/analyzer/matrix_kernels.h"
#include "tscope/analyzer/op_work.h"
#include "tscope/analyzer/tensor_cores.h"
#include "tscope/trace/chrome_json_reader.h"
#include "tscope/trace/trace_io.h"
#include "tscope_process.h"

namespace tscope::analyzer {
namespace {

TEST(DevicePeaksTest, TheDevicesOfTheRealTracesAreKnownByTheNamesTheyRecord) {
  TSCOPE_LOAD_SHARED_TRACE(alexnet, "kineto/hta_critical_path_alexnet_a100.json.gz");
  TSCOPE_LOAD_SHARED_TRACE(
      resnet, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  TSCOPE_LOAD_SHARED_TRACE(gp100, "kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  TSCOPE_LOAD_SHARED_TRACE(mi210, "kineto/tracelens_mi210_gpu_only.json.gz");
  const auto a100 = trace_device(alexnet);
  ASSERT_TRUE(a100 && a100->peaks);
  EXPECT_EQ(a100->name, "NVIDIA A100-PG509-200");
  EXPECT_EQ(a100->peaks->name, "A100 40GB");  // 42.3 GB of memory: the 40 GB part
  EXPECT_EQ(a100->peaks->sm_count, 108u);
  EXPECT_DOUBLE_EQ(a100->peaks->memory_bytes_per_second, 1555e9);
  const auto v100 = trace_device(resnet);
  ASSERT_TRUE(v100 && v100->peaks);
  EXPECT_EQ(v100->peaks->name, "Tesla V100 SXM2 / DGXS");
  EXPECT_EQ(v100->peaks->tf32_matrix_flops, 0);  // Volta has no TF32
  EXPECT_DOUBLE_EQ(v100->peaks->fp16_matrix_flops, 125e12);
  const auto quadro = trace_device(gp100);
  ASSERT_TRUE(quadro && quadro->peaks);
  EXPECT_EQ(quadro->peaks->fp16_matrix_flops, 0);  // Pascal: no Tensor Cores
  const auto amd = trace_device(mi210);
  ASSERT_TRUE(amd && amd->peaks);
  EXPECT_EQ(amd->peaks->sm_count, 104u);
}

TEST(DevicePeaksTest, TheMultiRankTracesNameNoDevice) {
  TSCOPE_LOAD_SHARED_TRACE(rank0, "multirank/sampled_rank-0.json.gz");
  EXPECT_FALSE(trace_device(rank0).has_value());
}

TEST(DevicePeaksTest, NamesAsDriversReportThemPickTheirVariant) {
  const auto name_of = [](std::string_view device, std::uint64_t memory = 0) {
    const auto peaks = find_device_peaks(device, memory);
    return peaks ? std::string(peaks->name) : std::string("unknown");
  };
  EXPECT_EQ(name_of("Tesla V100-PCIE-32GB"), "Tesla V100 PCIe");
  EXPECT_EQ(name_of("Tesla V100-SXM2-16GB"), "Tesla V100 SXM2 / DGXS");
  EXPECT_EQ(name_of("NVIDIA A100-SXM4-40GB", 42'505'273'344), "A100 40GB");
  EXPECT_EQ(name_of("NVIDIA A100-SXM4-80GB", 85'198'045'184), "A100 80GB SXM4");
  EXPECT_EQ(name_of("NVIDIA A100 80GB PCIe", 85'093'187'584), "A100 80GB PCIe");
  EXPECT_EQ(name_of("NVIDIA H100 80GB HBM3"), "H100 SXM5");
  EXPECT_EQ(name_of("NVIDIA H100 PCIe"), "H100 PCIe");
  EXPECT_EQ(name_of("NVIDIA H200"), "H200 SXM");
  EXPECT_EQ(name_of("NVIDIA L4"), "L4");
  EXPECT_EQ(name_of("NVIDIA A10"), "A10");
  EXPECT_EQ(name_of("Tesla T4"), "Tesla T4");
  EXPECT_EQ(name_of("NVIDIA GeForce RTX 3090"), "GeForce RTX 3090");
  EXPECT_EQ(name_of("NVIDIA GeForce RTX 4090"), "GeForce RTX 4090");
  // Variants with other figures are not guessed from a relative.
  EXPECT_EQ(name_of("NVIDIA A10G"), "unknown");
  EXPECT_EQ(name_of("NVIDIA H100 NVL"), "unknown");
  EXPECT_EQ(name_of("NVIDIA GeForce RTX 3090 Ti"), "unknown");
}

TEST(MatrixKernelTest, KernelNamesOfTheRealTracesTellTheirUnitAndPrecision) {
  struct Case {
    std::string_view name;
    MatrixUnit unit;
    MatrixPrecision precision;
  };
  const Case cases[] = {
      {"ampere_sgemm_32x32_sliced1x4_tn", MatrixUnit::kScalar, MatrixPrecision::kFp32},
      {"volta_sgemm_64x64_nt", MatrixUnit::kScalar, MatrixPrecision::kFp32},
      {"cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1", MatrixUnit::kScalar,
       MatrixPrecision::kFp32},
      {"void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>",
       MatrixUnit::kScalar, MatrixPrecision::kFp32},
      {"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>", MatrixUnit::kScalar,
       MatrixPrecision::kFp32},
      {"void cutlass::Kernel<cutlass_80_simt_sgemm_128x32_8x5_nn_align1>", MatrixUnit::kScalar,
       MatrixPrecision::kFp32},
      {"ampere_gcgemm_64x64_nt", MatrixUnit::kScalar, MatrixPrecision::kFp32},
      {"sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_"
       "stage4_warpsize2x2x1_g1_tensor16x8x8_alignc4_execute_kernel",
       MatrixUnit::kTensorCores, MatrixPrecision::kTf32},
      {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>",
       MatrixUnit::kTensorCores, MatrixPrecision::kTf32},
      {"_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_"
       "11threadblock22ImplicitGemmMultistageINS_4gemm9GemmShapeILi128ELi128ELi32EEENS_10tfloat32_"
       "t",
       MatrixUnit::kTensorCores, MatrixPrecision::kTf32},
      {"igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt32x256x32_wt16x64x4_ws1x1_wr1x2",
       MatrixUnit::kTensorCores, MatrixPrecision::kBf16},
      {"ampere_h16816gemm_256x128_ldg8_stages_32x3_nn", MatrixUnit::kTensorCores,
       MatrixPrecision::kFp16},
      {"sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize64x64x8_stage3_warpsize1x4x1_ffma_aligna4",
       MatrixUnit::kScalar, MatrixPrecision::kFp32},
      // Not GEMMs, or GEMMs that are bandwidth-bound whatever unit runs them.
      {"void gemv2N_kernel<int, int, float, float, float, float, 128, 1, 4, 4, 1, false>",
       MatrixUnit::kNone, MatrixPrecision::kUnknown},
      {"void gemmk1_kernel<int, float, 256, 5, false, false, false, false>", MatrixUnit::kNone,
       MatrixPrecision::kUnknown},
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
       "namespace)::TensorListMetadata<2>>",
       MatrixUnit::kNone, MatrixPrecision::kUnknown},
      {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true>", MatrixUnit::kNone,
       MatrixPrecision::kUnknown},
  };
  for (const Case& each : cases) {
    const MatrixKernel kernel = classify_matrix_kernel(each.name);
    EXPECT_EQ(kernel.unit, each.unit) << each.name;
    EXPECT_EQ(kernel.precision, each.precision) << each.name;
  }
}

// An operator with these input shapes, as a trace stores it.
class OpWorkTest : public ::testing::Test {
 protected:
  trace::OpView op(const std::vector<std::vector<std::int64_t>>& input_shapes) {
    trace::OpView stored;
    stored.input_shapes = shapes_.list(shapes_.append(input_shapes));
    return stored;
  }

 private:
  trace::ShapeLists shapes_;
};

TEST_F(OpWorkTest, MatrixProductFlopsFollowFromTheirShapes) {
  const trace::OpView mm = op({{32, 1000}, {1000, 2048}});
  EXPECT_DOUBLE_EQ(op_work("aten::mm", mm)->flops, 2.0 * 32 * 1000 * 2048);
  const trace::OpView addmm = op({{1000}, {32, 2048}, {2048, 1000}, {}, {}});
  EXPECT_DOUBLE_EQ(op_work("aten::addmm", addmm)->flops, 2.0 * 32 * 2048 * 1000);
  const trace::OpView linear = op({{2048, 6948}, {256, 6948}, {256}});
  EXPECT_DOUBLE_EQ(op_work("aten::linear", linear)->flops, 2.0 * 2048 * 6948 * 256);
  const trace::OpView bmm = op({{2048, 160, 45}, {2048, 45, 20}});
  EXPECT_DOUBLE_EQ(op_work("aten::bmm", bmm)->flops, 2.0 * 2048 * 160 * 45 * 20);
  // a batched left side times one matrix
  const trace::OpView matmul = op({{2048, 160, 300}, {300, 10}});
  EXPECT_DOUBLE_EQ(op_work("aten::matmul", matmul)->flops, 2.0 * 2048 * 160 * 300 * 10);
  const trace::OpView mismatched = op({{32, 1000}, {999, 2048}});
  EXPECT_FALSE(op_work("aten::mm", mismatched).has_value());
}

TEST_F(OpWorkTest, ConvolutionGradientsCountBothPassesAndForwardConvolutionsAreUnknown) {
  // [input, grad_output, weight] of a 1x1 convolution
  const trace::OpView backward = op({{32, 512, 7, 7}, {32, 2048, 7, 7}, {2048, 512, 1, 1}});
  EXPECT_DOUBLE_EQ(op_work("aten::cudnn_convolution_backward", backward)->flops,
                   2 * 2.0 * 32 * 2048 * 7 * 7 * 512);
  // the stride and padding that fix the output size are not recorded
  const trace::OpView forward = op({{32, 3, 224, 224}, {64, 3, 7, 7}});
  EXPECT_FALSE(op_work("aten::cudnn_convolution", forward).has_value());
  trace::OpView engine = op({});  // our engine records its flops and bytes
  engine.flops = 1000;
  engine.bytes_read = 300;
  engine.bytes_written = 100;
  EXPECT_DOUBLE_EQ(op_work("add", engine)->bytes, 400);
}

TEST(TensorCoreTest, ResNet50OnV100RunsEveryGemmAndConvolutionOnFp32SimtAndNeedsAutocast) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  const AnalysisContext context(trace, {});
  const std::vector<Finding> findings = find_tensor_core_use(context);
  const Finding* finding = find_kind(findings, "tensor_cores");
  ASSERT_NE(finding, nullptr);
  // No kernel of this trace names a Tensor Core instruction (884, xmma, tensorop, ...).
  EXPECT_DOUBLE_EQ(finding->metric("scalar_share"), 1.0);
  EXPECT_EQ(finding->metric("tf32_share"), 0);
  EXPECT_NEAR(finding->estimated_gain_ns_per_step,
              finding->metric("scalar_ns_per_step") * (1 - 15.7 / 125.0), 1.0);
  EXPECT_NE(finding->recommendation.find("float16"), std::string::npos);
  EXPECT_EQ(finding->recommendation.find("allow_tf32"), std::string::npos);
  EXPECT_FALSE(finding->evidence.empty());
}

TEST(TensorCoreTest, A100TrainingMixesTf32AndSimtKernelsAndTheFixIsTf32) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_nccl_data_a100_rank0_of2.json.gz");
  const AnalysisContext context(trace, {});
  const std::vector<Finding> findings = find_tensor_core_use(context);
  const Finding* finding = find_kind(findings, "tensor_cores");
  ASSERT_NE(finding, nullptr);
  EXPECT_GT(finding->metric("scalar_share"), 0.0);
  EXPECT_LT(finding->metric("scalar_share"), 1.0);
  EXPECT_NEAR(finding->estimated_gain_ns_per_step,
              finding->metric("scalar_ns_per_step") * (1 - 19.5 / 156.0), 1.0);
  EXPECT_NE(finding->recommendation.find("allow_tf32"), std::string::npos);
  // cuDNN's TF32 kernels (sm80_xmma_*tf32*, cutlass_tensorop_s1688*) already run most of it.
  EXPECT_GT(finding->metric("tf32_share"), 0.5);
  EXPECT_NE(finding->recommendation.find("cudnn.benchmark"), std::string::npos);
}

TEST(TensorCoreTest, AnUnnamedGpuGetsTheShareButNoGainEstimate) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "multirank/sampled_rank-0.json.gz");
  const AnalysisContext context(trace, {});
  const std::vector<Finding> findings = find_tensor_core_use(context);
  const Finding* finding = find_kind(findings, "tensor_cores");
  ASSERT_NE(finding, nullptr);
  EXPECT_GT(finding->metric("scalar_share"), 0.0);
  EXPECT_EQ(finding->estimated_gain_ns_per_step, 0);
  EXPECT_NE(finding->explanation.find("does not name its GPU"), std::string::npos);
}

TEST(TensorCoreTest, MatrixVectorKernelsAloneMakeNoFinding) {
  // The GP100 trace's only BLAS kernels are gemv and gemmk1: bandwidth-bound, not GEMMs.
  TSCOPE_LOAD_SHARED_TRACE(trace, "kineto/hta_step_based_gpu_user_annotation_gp100.json.gz");
  const AnalysisContext context(trace, {});
  EXPECT_TRUE(find_tensor_core_use(context).empty());
}

TEST(RooflineTest, ResNet50OnV100RanksOpsByTimeAboveTheirRoofline) {
  TSCOPE_LOAD_SHARED_TRACE(
      trace, "kineto/kineto_tbplugin_resnet50_v100_2021_legacy_schema.pt.trace.json.gz");
  const AnalysisContext context(trace, {});
  const std::vector<Finding> findings = find_roofline_gaps(context);
  ASSERT_FALSE(findings.empty());
  double previous_gain = findings.front().estimated_gain_ns_per_step;
  for (const Finding& finding : findings) {
    EXPECT_EQ(finding.kind, "roofline_gap");
    EXPECT_LE(finding.estimated_gain_ns_per_step, previous_gain);
    previous_gain = finding.estimated_gain_ns_per_step;
    // Achieved work never beats the device: flops are not overcounted.
    EXPECT_LE(finding.metric("share_of_peak"), 1.0) << finding.title;
    EXPECT_GT(finding.metric("share_of_peak"), 0.0) << finding.title;
    EXPECT_NEAR(finding.estimated_gain_ns_per_step,
                finding.metric("time_ns_per_step") - finding.metric("attainable_ns_per_step"), 1.0);
    EXPECT_EQ(finding.metric("peak_flops_per_second"), 15.7e12);  // FP32 SIMT kernels only
    EXPECT_FALSE(finding.evidence.empty());
  }
}

TEST(RooflineTest, ATraceThatNamesNoGpuSaysSoInsteadOfGuessingAPeak) {
  TSCOPE_LOAD_SHARED_TRACE(trace, "multirank/sampled_rank-0.json.gz");
  const AnalysisContext context(trace, {});
  const std::vector<Finding> findings = find_roofline_gaps(context);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "roofline_unavailable");
  EXPECT_EQ(findings[0].severity, Severity::kInfo);
}

TEST(RooflineTest, CpuOpsCompareWithTheMeasuredCpuPeakOnlyWhenOneIsGiven) {
  tscope::testing::SyntheticTrace synthetic;
  synthetic.step("step 0", 0, 10'000'000, 32);
  // 1 GFLOP in 10 ms: 100 GFLOP/s against a 400 GFLOP/s peak -> 2.5 ms at the roofline.
  synthetic.op("matmul", 0, 10'000'000, {1, 2}, {3}, 8'000'000, 4'000'000, 1'000'000'000);
  const trace::Trace trace = synthetic.finish();

  const std::vector<Finding> unknown = find_roofline_gaps(AnalysisContext(trace, {}));
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_EQ(unknown[0].kind, "roofline_unavailable");

  AnalysisOptions options;
  options.cpu_peak_flops = 400e9;
  options.cpu_peak_bytes_per_second = 20e9;  // 12 MB in 0.6 ms: compute-bound
  const std::vector<Finding> findings = find_roofline_gaps(AnalysisContext(trace, options));
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "roofline_gap");
  EXPECT_NEAR(findings[0].metric("attainable_ns_per_step"), 2.5e6, 1.0);
  EXPECT_NEAR(findings[0].estimated_gain_ns_per_step, 7.5e6, 1.0);
  EXPECT_NEAR(findings[0].metric("share_of_peak"), 0.25, 1e-9);
}

TEST(RooflineTest, AnalyzeMeasuresThisCpusPeakWhenAsked) {
  tscope::testing::SyntheticTrace synthetic;
  synthetic.step("step 0", 0, 10'000'000, 32);
  // 1 MFLOP in 10 ms, 0.1 GFLOP/s: far below any CPU's sgemm rate.
  synthetic.op("matmul", 0, 10'000'000, {1, 2}, {3}, 8'000, 4'000, 1'000'000);
  const std::filesystem::path path = tscope::testing::scratch_path("tscope_cpu_peak.tsc");
  trace::save_trace(synthetic.finish(), path);
  const auto measured = tscope::testing::run_tscope("analyze --only roofline --cpu-peak measure " +
                                                    tscope::testing::quoted(path));
  const auto unmeasured =
      tscope::testing::run_tscope("analyze --only roofline " + tscope::testing::quoted(path));
  std::filesystem::remove(path);
  EXPECT_EQ(measured.exit_code, 0) << measured.output;
  EXPECT_NE(measured.output.find("this CPU's measured peak"), std::string::npos) << measured.output;
  EXPECT_NE(measured.output.find("reaches"), std::string::npos) << measured.output;
  EXPECT_NE(unmeasured.output.find("No roofline: the CPU's peak is not known"), std::string::npos)
      << unmeasured.output;
}

}  // namespace
}  // namespace tscope::analyzer
