// The kernel family table on names as the libraries write them: collectives, attention, GEMMs and
// convolutions are never taken for the elementwise or reduction work a fused kernel absorbs.

#include "kernel_families.h"

#include <gtest/gtest.h>

#include <string_view>
#include <utility>

namespace tscope::analyzer {
namespace {

TEST(KernelFamilies, LibraryKernelNamesGiveTheirFamily) {
  const std::pair<std::string_view, KernelFamily> cases[] = {
      // NCCL before 2.19 and after, RCCL, PyTorch symmetric memory, vLLM's custom all-reduce.
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
       KernelFamily::kCommunication},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
       KernelFamily::kCommunication},
      {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", KernelFamily::kCommunication},
      {"void c10d::symmetric_memory::multimem_all_reduce_kernel<c10::BFloat16, 16, 8>",
       KernelFamily::kCommunication},
      {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>", KernelFamily::kCommunication},
      // cuBLAS on Hopper, its split-K reduction, cuBLASLt/xmma, SIMT sgemm, CUTLASS, Tensile.
      {"nvjet_tst_128x256_64x4_2x1_v_bz_coopA_TNT", KernelFamily::kGemm},
      {"void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>",
       KernelFamily::kGemm},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1",
       KernelFamily::kGemm},
      {"volta_sgemm_128x64_nn", KernelFamily::kGemm},
      {"cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x5_tn_align4>",
       KernelFamily::kGemm},
      {"Cijk_Ailk_Bljk_SB_MT64x64x16_MI32x32x2x1_SN", KernelFamily::kGemm},
      // cuDNN convolutions, its batch norm, attention kernels.
      {"void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, true, false, true>",
       KernelFamily::kConvolution},
      {"sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc",
       KernelFamily::kConvolution},
      {"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>",
       KernelFamily::kNormalization},
      {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>, false, true>",
       KernelFamily::kAttention},
      {"fmha_cutlassF_f16_aligned_64x64_rf_sm80", KernelFamily::kAttention},
      // PyTorch's and Triton's memory-bound kernels.
      {"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>",
       KernelFamily::kElementwise},
      {"triton_poi_fused_add_mul_0", KernelFamily::kElementwise},
      {"triton_red_fused_sum_1", KernelFamily::kReduction},
      {"triton_per_fused_native_layer_norm_2", KernelFamily::kNormalization},
      {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>",
       KernelFamily::kReduction},
      {"void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10>",
       KernelFamily::kSoftmax},
      {"void at::native::unrolled_elementwise_kernel<at::native::copy_kernel, convert>",
       KernelFamily::kElementwise},
      {"Memcpy HtoD (Pageable -> Device)", KernelFamily::kOther},
  };
  for (const auto& [name, family] : cases)
    EXPECT_EQ(to_string(kernel_family(name)), to_string(family)) << name;
}

TEST(KernelFamilies, OnlyMemoryBoundFamiliesAreFusable) {
  for (const KernelFamily family :
       {KernelFamily::kCommunication, KernelFamily::kAttention, KernelFamily::kConvolution,
        KernelFamily::kGemm, KernelFamily::kOther}) {
    EXPECT_FALSE(is_fusable(family)) << to_string(family);
  }
  for (const KernelFamily family : {KernelFamily::kElementwise, KernelFamily::kReduction,
                                    KernelFamily::kNormalization, KernelFamily::kSoftmax}) {
    EXPECT_TRUE(is_fusable(family)) << to_string(family);
  }
}

}  // namespace
}  // namespace tscope::analyzer
