/* cublaslt_api.h - the cuBLASLt declarations this project uses, written from
 * CUDA 12/13's cublasLt.h (compared, not included): prototypes for
 * __typeof__ when the functions are dlsym'd (blaslt_cuda.c), enum values as
 * the header numbers them. Never linked. */
#ifndef RVD_GPU_CUBLASLT_API_H
#define RVD_GPU_CUBLASLT_API_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_api.h"

typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque *cublasLtMatmulDesc_t;     /* opaque to us */
typedef struct cublasLtMatrixLayoutOpaque *cublasLtMatrixLayout_t; /* opaque to us */
typedef struct cublasLtMatmulPrefOpaque *cublasLtMatmulPreference_t;
typedef struct {
    uint64_t data[8];
} cublasLtMatmulAlgo_t;
typedef struct {
    cublasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} cublasLtMatmulHeuristicResult_t;

enum { /* cublasLtMatmulDescAttributes_t */
       CUBLASLT_MATMUL_DESC_TRANSA = 3,
       CUBLASLT_MATMUL_DESC_TRANSB = 4,
       CUBLASLT_MATMUL_DESC_EPILOGUE = 7,
       CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,
       CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26
};
/* GELU_BIAS = GELU (32) | BIAS (4): the bias, then GELU */
enum {
    CUBLASLT_EPILOGUE_DEFAULT = 1,
    CUBLASLT_EPILOGUE_BIAS = 4,
    CUBLASLT_EPILOGUE_GELU_BIAS = 36
};
enum { /* cublasLtMatmulPreferenceAttributes_t */
       CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1,
       CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES = 5,
       CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES = 6,
       CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES = 7,
       CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES = 8
};
enum { CUBLAS_OP_T = 1 };

cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle);
size_t cublasLtGetVersion(void);
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc, int computeType,
                                        int scaleType);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc);
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc, int attr,
                                              const void *buf, size_t sizeInBytes);
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, int type,
                                          uint64_t rows, uint64_t cols, int64_t ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t matLayout);
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *pref);
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref);
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref, int attr,
                                                    const void *buf, size_t sizeInBytes);
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc, cublasLtMatrixLayout_t Adesc,
    cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
    cublasLtMatmulPreference_t preference, int requestedAlgoCount,
    cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int *returnAlgoCount);
cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                              const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                              const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
                              const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                              cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
                              void *workspace, size_t workspaceSizeInBytes, CUstream stream);

#endif
