/* test_torch_kernels.c - the kernel-name classifiers of the torch probe
 * (probes/torch_kernels.c) on CUDA and ROCm names, including the H200's
 * measured names (docs/PERFORMANCE.md) and the CPU-side aten:: operators
 * that must not decide. */
#include <string.h>

#include "../../probes/torch_kernels.h"
#include "test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int is(const char *got, const char *want)
{
    return got && want ? strcmp(got, want) == 0 : got == want;
}

int main(void)
{
    /* CUDA: the names torch 2.11 ran on the H200 */
    /* one name split over two lines: a variable, so that no compiler takes
     * the two literals for a missing comma (clang -Wstring-concatenation) */
    static const char cudnn_sdpa[] =
        "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_"
        "cga1x1x1_kernel0_0";
    const char *h200[] = {
        "aten::_cudnn_attention_forward", cudnn_sdpa, "nvjet_sm90_tst_128x104_64x7_1x2_h_bz_TNT",
        "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_128x64_64x6_tn_align2>",
        "Memcpy DtoD (Device -> Device)"};
    CHECK(is(torch_sdpa_backend(h200, N(h200)), "cudnn"));
    CHECK(is(torch_blas_library(h200, N(h200)), "cublaslt"));
    CHECK(!torch_has_htod(h200, N(h200)));
    const char *flash[] = {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128>>",
                           "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"};
    CHECK(is(torch_sdpa_backend(flash, N(flash)), "flash"));
    CHECK(is(torch_blas_library(flash, N(flash)), "cublas"));
    const char *meff[] = {"fmha_cutlassF_bf16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::"};
    CHECK(is(torch_sdpa_backend(meff, N(meff)), "mem_efficient"));
    CHECK(is(torch_blas_library(meff, N(meff)), NULL));
    const char *math[] = {"void (anonymous namespace)::softmax_warp_forward<c10::BFloat16>",
                          "Memcpy HtoD (Pageable -> Device)"};
    CHECK(is(torch_sdpa_backend(math, N(math)), "math"));
    CHECK(torch_has_htod(math, N(math)));
    /* ROCm: AOTriton, whose CPU op is aten::_efficient_attention_forward */
    const char *aot[] = {"aten::_efficient_attention_forward", "attn_fwd",
                         "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x256x64_MI16x16x1_SN"};
    CHECK(is(torch_sdpa_backend(aot, N(aot)), "aotriton"));
    CHECK(is(torch_blas_library(aot, N(aot)), "hipblaslt"));
    const char *ck[] = {"ck_tile::FmhaFwdKernel<ck_tile::BlockFmhaPipelineQRKSVSAsync<>>",
                        "Custom_Cijk_Alik_Bljk_BBS_BH_Bias_AS_SAV_UserArgs_MT256x256x64_DTVA",
                        "Cijk_Ailk_Bljk_BBS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_GRVW8"};
    CHECK(is(torch_sdpa_backend(ck, N(ck)), "ck"));
    CHECK(is(torch_blas_library(ck, N(ck)), "hipblaslt+rocblas"));
    const char *roc[] = {"Cijk_Ailk_Bljk_BBS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_GRVW8",
                         "rocblas_gemvt_kernel", "aten::_flash_attention_forward"};
    CHECK(is(torch_blas_library(roc, N(roc)), "rocblas"));
    /* the CPU-side operator alone decides nothing */
    CHECK(is(torch_sdpa_backend(roc, N(roc)), NULL));
    CHECK(is(torch_sdpa_backend(NULL, 0), NULL));
    CHECK(is(torch_blas_library(NULL, 0), NULL));
    return test_report();
}
