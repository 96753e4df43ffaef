/* blaslt_cuda.c - see blaslt_cuda.h: cuBLASLt's symbols, enumeration values
 * and heuristic result layout (cublaslt_api.h) for blaslt.c. The handle and
 * the preference are kept until the process exits (keep_handles): the
 * backend keeps its context as long. */
#include "blaslt_cuda.h"

#include <stddef.h>
#include <stdlib.h>

#include "cublaslt_api.h"

/* the prototypes have the shapes blaslt.c calls them with */
LT_SHAPE(lt_create_fn, cublasLtCreate);
LT_SHAPE(lt_create_fn, cublasLtMatmulPreferenceCreate);
LT_SHAPE(lt_desc_create_fn, cublasLtMatmulDescCreate);
LT_SHAPE(lt_set_fn, cublasLtMatmulDescSetAttribute);
LT_SHAPE(lt_set_fn, cublasLtMatmulPreferenceSetAttribute);
LT_SHAPE(lt_layout_create_fn, cublasLtMatrixLayoutCreate);
LT_SHAPE(lt_heuristic_fn, cublasLtMatmulAlgoGetHeuristic);
LT_SHAPE(lt_matmul_fn, cublasLtMatmul);
LT_SHAPE(lt_destroy_fn, cublasLtMatrixLayoutDestroy);
LT_SHAPE(lt_destroy_fn, cublasLtMatmulDescDestroy);
LT_SHAPE(lt_destroy_fn, cublasLtMatmulPreferenceDestroy);

static const struct lt_lib cublaslt = {
    .name = "cuBLASLt",
    .sym = LT_SYMS("cublasLt"),
    .keep_handles = 1,
    .attr_transa = CUBLASLT_MATMUL_DESC_TRANSA,
    .attr_transb = CUBLASLT_MATMUL_DESC_TRANSB,
    .attr_epi = CUBLASLT_MATMUL_DESC_EPILOGUE,
    .attr_bias_ptr = CUBLASLT_MATMUL_DESC_BIAS_POINTER,
    .attr_bias_type = CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
    .op_n = CUBLAS_OP_N,
    .op_t = CUBLAS_OP_T,
    .compute_32f = CUBLAS_COMPUTE_32F,
    .t_f32 = CUDA_R_32F,
    .t_f16 = CUDA_R_16F,
    .t_bf16 = CUDA_R_16BF,
    .epi_default = CUBLASLT_EPILOGUE_DEFAULT,
    .epi_bias = CUBLASLT_EPILOGUE_BIAS,
    .epi_gelu_bias = CUBLASLT_EPILOGUE_GELU_BIAS,
    .pref_ws = CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
    .pref_align = CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
    .heur_size = sizeof(cublasLtMatmulHeuristicResult_t),
    .heur_algo = offsetof(cublasLtMatmulHeuristicResult_t, algo),
    .heur_ws = offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize),
    .heur_state = offsetof(cublasLtMatmulHeuristicResult_t, state),
    .algo_size = sizeof(cublasLtMatmulAlgo_t),
};

struct gpu_lt *gpu_lt_open(char *lib, size_t lib_len, char **err)
{
    const char *forced = getenv("ROCM_VLA_DOCTOR_CUBLASLT_LIB");
    const char *const names[] = {forced ? forced : "libcublasLt.so",
                                 forced ? NULL : "libcublasLt.so.13",
                                 forced ? NULL : "libcublasLt.so.12",
                                 forced ? NULL : "/usr/local/cuda/lib64/libcublasLt.so"};
    return gpu_lt_load(&cublaslt, names, ARRAY_SIZE(names), lib, lib_len, err);
}
