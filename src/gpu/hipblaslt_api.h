/* hipblaslt_api.h - the hipBLASLt declarations a binding of the HIP
 * backend's blas_lt needs, written from ROCm/hipBLASLt@rocm-6.2.2
 * library/include/hipblaslt.h (unchanged at the 6.3 development head
 * 7d9fb683), hipDataType from HIP's library_types.h and hipblasStatus_t,
 * hipblasOperation_t, hipblasComputeType_t from ROCm/hipBLAS@rocm-6.2.2
 * library/include/hipblas.h (hipBLAS-common's hipblas-common.h from ROCm 6.3:
 * the same values). Never linked, never included from C++: the vendor's
 * header is C++ only (<memory>, <vector>), so tests/data/hipblaslt-abi.tsv
 * keeps its values, layouts and prototypes with their source and
 * tests/rocm_headers.sh holds this file against that table.
 *
 * The attribute numbers are not cuBLASLt's (TRANSA is 0 here, 3 there;
 * BIAS_POINTER 3 here, 8 there): cublaslt_api.h's values must never be
 * reused. Enumerations are their C type, unsigned int (see hip_api.h). */
#ifndef RVD_GPU_HIPBLASLT_API_H
#define RVD_GPU_HIPBLASLT_API_H

#include <stddef.h>
#include <stdint.h>

#include "hip_api.h"

typedef unsigned int hipblasStatus_t;
typedef unsigned int hipblasOperation_t;
typedef unsigned int hipblasComputeType_t;
typedef unsigned int hipDataType;
typedef unsigned int hipblasLtMatmulDescAttributes_t;
typedef unsigned int hipblasLtMatmulPreferenceAttributes_t;
typedef unsigned int hipblasLtEpilogue_t;

typedef void *hipblasLtHandle_t;
typedef struct _hipblasLtMatmulDescOpaque_t *hipblasLtMatmulDesc_t;     /* opaque to us */
typedef struct _hipblasLtMatrixLayoutOpaque_t *hipblasLtMatrixLayout_t; /* opaque to us */
typedef struct _hipblasLtMatmulPreferenceOpaque_t *hipblasLtMatmulPreference_t;
typedef struct {
    uint8_t data[16];
    size_t max_workspace_bytes;
} hipblasLtMatmulAlgo_t;
typedef struct {
    hipblasLtMatmulAlgo_t algo;
    size_t workspaceSize;
    hipblasStatus_t state;
    float wavesCount;
    int reserved[4];
} hipblasLtMatmulHeuristicResult_t;

enum { HIPBLAS_STATUS_SUCCESS = 0 };
enum { HIPBLAS_OP_N = 111, HIPBLAS_OP_T = 112 };
enum { HIPBLAS_COMPUTE_32F = 2 };
enum { HIP_R_32F = 0, HIP_R_16F = 2, HIP_R_16BF = 14 };
enum { /* hipblasLtMatmulDescAttributes_t */
       HIPBLASLT_MATMUL_DESC_TRANSA = 0,
       HIPBLASLT_MATMUL_DESC_TRANSB = 1,
       HIPBLASLT_MATMUL_DESC_EPILOGUE = 2,
       HIPBLASLT_MATMUL_DESC_BIAS_POINTER = 3,
       HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 4
};
/* GELU_BIAS = GELU (32) | BIAS (4): the bias, then GELU (as cuBLASLt) */
enum {
    HIPBLASLT_EPILOGUE_DEFAULT = 1,
    HIPBLASLT_EPILOGUE_BIAS = 4,
    HIPBLASLT_EPILOGUE_GELU_BIAS = 36
};
enum { /* hipblasLtMatmulPreferenceAttributes_t */
       HIPBLASLT_MATMUL_PREF_SEARCH_MODE = 0,
       HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES = 1
};

hipblasStatus_t hipblasLtCreate(hipblasLtHandle_t *handle);
hipblasStatus_t hipblasLtDestroy(const hipblasLtHandle_t handle);
hipblasStatus_t hipblasLtMatrixLayoutCreate(hipblasLtMatrixLayout_t *matLayout, hipDataType type,
                                            uint64_t rows, uint64_t cols, int64_t ld);
hipblasStatus_t hipblasLtMatrixLayoutDestroy(const hipblasLtMatrixLayout_t matLayout);
hipblasStatus_t hipblasLtMatmulDescCreate(hipblasLtMatmulDesc_t *matmulDesc,
                                          hipblasComputeType_t computeType, hipDataType scaleType);
hipblasStatus_t hipblasLtMatmulDescDestroy(const hipblasLtMatmulDesc_t matmulDesc);
hipblasStatus_t hipblasLtMatmulDescSetAttribute(hipblasLtMatmulDesc_t matmulDesc,
                                                hipblasLtMatmulDescAttributes_t attr,
                                                const void *buf, size_t sizeInBytes);
hipblasStatus_t hipblasLtMatmulPreferenceCreate(hipblasLtMatmulPreference_t *pref);
hipblasStatus_t hipblasLtMatmulPreferenceDestroy(const hipblasLtMatmulPreference_t pref);
hipblasStatus_t hipblasLtMatmulPreferenceSetAttribute(hipblasLtMatmulPreference_t pref,
                                                      hipblasLtMatmulPreferenceAttributes_t attr,
                                                      const void *buf, size_t sizeInBytes);
hipblasStatus_t hipblasLtMatmulAlgoGetHeuristic(
    hipblasLtHandle_t handle, hipblasLtMatmulDesc_t matmulDesc, hipblasLtMatrixLayout_t Adesc,
    hipblasLtMatrixLayout_t Bdesc, hipblasLtMatrixLayout_t Cdesc, hipblasLtMatrixLayout_t Ddesc,
    hipblasLtMatmulPreference_t pref, int requestedAlgoCount,
    hipblasLtMatmulHeuristicResult_t heuristicResultsArray[], int *returnAlgoCount);
hipblasStatus_t hipblasLtMatmul(hipblasLtHandle_t handle, hipblasLtMatmulDesc_t matmulDesc,
                                const void *alpha, const void *A, hipblasLtMatrixLayout_t Adesc,
                                const void *B, hipblasLtMatrixLayout_t Bdesc, const void *beta,
                                const void *C, hipblasLtMatrixLayout_t Cdesc, void *D,
                                hipblasLtMatrixLayout_t Ddesc, const hipblasLtMatmulAlgo_t *algo,
                                void *workspace, size_t workspaceSizeInBytes, hipStream_t stream);

#endif
