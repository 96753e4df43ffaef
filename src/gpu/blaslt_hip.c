/* blaslt_hip.c - see blaslt_hip.h: hipBLASLt's symbols, enumeration values
 * and heuristic result layout (hipblaslt_api.h, held against AMD's headers by
 * tests/rocm_headers.sh) for blaslt.c. The GEMMs are the ones cuBLASLt runs on
 * CUDA, with the same epilogues: bias, and bias then GELU (hipBLASLt has
 * both). What hipBLASLt lacks is the operands' minimum alignment as a
 * preference: its heuristic is asked without it, and the alignment still
 * keys the plans (a plan never meets a less aligned operand than it was
 * timed on). The handle and the preference are destroyed with the plans. */
#include "blaslt_hip.h"

#include <stddef.h>

#include "hipblaslt_api.h"

/* the prototypes have the shapes blaslt.c calls them with */
LT_SHAPE(lt_create_fn, hipblasLtCreate);
LT_SHAPE(lt_create_fn, hipblasLtMatmulPreferenceCreate);
LT_SHAPE(lt_desc_create_fn, hipblasLtMatmulDescCreate);
LT_SHAPE(lt_set_fn, hipblasLtMatmulDescSetAttribute);
LT_SHAPE(lt_set_fn, hipblasLtMatmulPreferenceSetAttribute);
LT_SHAPE(lt_layout_create_fn, hipblasLtMatrixLayoutCreate);
LT_SHAPE(lt_heuristic_fn, hipblasLtMatmulAlgoGetHeuristic);
LT_SHAPE(lt_matmul_fn, hipblasLtMatmul);
LT_SHAPE(lt_destroy_fn, hipblasLtMatrixLayoutDestroy);
LT_SHAPE(lt_destroy_fn, hipblasLtMatmulDescDestroy);
LT_SHAPE(lt_destroy_fn, hipblasLtMatmulPreferenceDestroy);
LT_SHAPE(lt_destroy_fn, hipblasLtDestroy);

static const struct lt_lib hipblaslt = {
    .name = "hipBLASLt",
    .sym = LT_SYMS("hipblasLt"),
    .attr_transa = HIPBLASLT_MATMUL_DESC_TRANSA,
    .attr_transb = HIPBLASLT_MATMUL_DESC_TRANSB,
    .attr_epi = HIPBLASLT_MATMUL_DESC_EPILOGUE,
    .attr_bias_ptr = HIPBLASLT_MATMUL_DESC_BIAS_POINTER,
    .attr_bias_type = HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
    .op_n = HIPBLAS_OP_N,
    .op_t = HIPBLAS_OP_T,
    .compute_32f = HIPBLAS_COMPUTE_32F,
    .t_f32 = HIP_R_32F,
    .t_f16 = HIP_R_16F,
    .t_bf16 = HIP_R_16BF,
    .epi_default = HIPBLASLT_EPILOGUE_DEFAULT,
    .epi_bias = HIPBLASLT_EPILOGUE_BIAS,
    .epi_gelu_bias = HIPBLASLT_EPILOGUE_GELU_BIAS,
    .pref_ws = HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
    .pref_align = -1,
    .heur_size = sizeof(hipblasLtMatmulHeuristicResult_t),
    .heur_algo = offsetof(hipblasLtMatmulHeuristicResult_t, algo),
    .heur_ws = offsetof(hipblasLtMatmulHeuristicResult_t, workspaceSize),
    .heur_state = offsetof(hipblasLtMatmulHeuristicResult_t, state),
    .algo_size = sizeof(hipblasLtMatmulAlgo_t),
};

struct gpu_lt *gpu_lt_hip_open(const char *const *names, size_t n, char *lib, size_t lib_len,
                               char **err)
{
    return gpu_lt_load(&hipblaslt, names, n, lib, lib_len, err);
}
