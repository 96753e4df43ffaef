/* torch_kernels.c - see torch_kernels.h. The name fragments, and where
 * they come from:
 *   CUDA flash: pytorch_flash::flash_fwd_kernel / flash_fwd_splitkv_kernel
 *     (aten/src/ATen/native/transformers/cuda/flash_attn);
 *   CUDA memory-efficient: fmha_cutlassF_* (mem_eff_attention kernels);
 *   cuDNN: cudnn_generated_fort_native_sdpa* and other cudnn names;
 *   ROCm CK: ck_tile::FmhaFwdKernel / fmha_fwd (composable_kernel);
 *   ROCm AOTriton: attn_fwd (the AOTriton Triton kernels, flash and
 *     memory-efficient alike: their names do not tell the two apart);
 *   math: the softmax kernels of the unfused path (softmax_warp_forward,
 *     cunn_SoftMaxForward) with no fused attention kernel;
 *   hipBLASLt: TensileLite's Cijk_* names carry _UserArgs (and custom
 *     kernels start Custom_Cijk_); rocBLAS: Tensile Cijk_* names without
 *     it, and rocblas_* kernels; cuBLASLt: nvjet_*; cuBLAS/cuBLASLt:
 *     sm*_xmma_gemm, ampere_/cutlass gemm names. */
#include "torch_kernels.h"

#include <string.h>

/* aten:: names are the CPU-side operators (aten::_efficient_attention_forward
 * runs AOTriton on ROCm): only the kernels say what ran */
static int any(const char *const *names, size_t n, const char *frag)
{
    for (size_t i = 0; i < n; i++)
        if (names[i] && strncmp(names[i], "aten::", 6) != 0 && strstr(names[i], frag))
            return 1;
    return 0;
}

const char *torch_sdpa_backend(const char *const *names, size_t n)
{
    if (any(names, n, "fort_native_sdpa") || any(names, n, "cudnn_generated"))
        return "cudnn";
    if (any(names, n, "flash_fwd"))
        return "flash";
    if (any(names, n, "fmha_cutlass") || any(names, n, "efficient_attention"))
        return "mem_efficient";
    if (any(names, n, "FmhaFwd") || any(names, n, "fmha_fwd"))
        return "ck";
    if (any(names, n, "attn_fwd"))
        return "aotriton";
    if (any(names, n, "softmax") || any(names, n, "SoftMax"))
        return "math";
    return NULL;
}

const char *torch_blas_library(const char *const *names, size_t n)
{
    int lt = any(names, n, "_UserArgs") || any(names, n, "Custom_Cijk_");
    int roc = any(names, n, "rocblas_");
    for (size_t i = 0; i < n && !roc; i++)
        roc = names[i] && strstr(names[i], "Cijk_") && !strstr(names[i], "_UserArgs") &&
              !strstr(names[i], "Custom_Cijk_");
    if (lt || roc)
        return lt && roc ? "hipblaslt+rocblas" : lt ? "hipblaslt" : "rocblas";
    if (any(names, n, "nvjet"))
        return "cublaslt";
    if (any(names, n, "xmma_gemm") || any(names, n, "gemm"))
        return "cublas";
    return NULL;
}

int torch_has_htod(const char *const *names, size_t n)
{
    return any(names, n, "Memcpy HtoD");
}
