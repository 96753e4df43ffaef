/* rocblas_api.h - the rocBLAS declarations this project uses, written from
 * ROCm/rocBLAS library/include/internal/rocblas-types.h and
 * rocblas-functions.h (the enum values are equal from ROCm 3.x to 6.x; the
 * _ex functions lost their workspace arguments in rocBLAS 2.x, before any
 * ROCm this doctor supports). Never linked: backend_hip.c resolves each with
 * (__typeof__(&fn))dlsym so that a call with the wrong signature fails the
 * build. Enumerations are their C type, unsigned int (see hip_api.h).
 * rocblas_int is 32-bit (the ILP64 API has _64 names, unused here). */
#ifndef RVD_GPU_ROCBLAS_API_H
#define RVD_GPU_ROCBLAS_API_H

#include <stdint.h>

#include "hip_api.h"

typedef unsigned int rocblas_status;
typedef struct _rocblas_handle *rocblas_handle;
typedef int32_t rocblas_int;
typedef int64_t rocblas_stride;
typedef unsigned int rocblas_operation;
typedef unsigned int rocblas_datatype;
typedef unsigned int rocblas_gemm_algo;

enum { rocblas_status_success = 0 };
enum { rocblas_operation_none = 111, rocblas_operation_transpose = 112 };
enum { rocblas_datatype_f16_r = 150, rocblas_datatype_f32_r = 151, rocblas_datatype_bf16_r = 168 };
enum { rocblas_gemm_algo_standard = 0 };

rocblas_status rocblas_create_handle(rocblas_handle *handle);
rocblas_status rocblas_destroy_handle(rocblas_handle handle);
rocblas_status rocblas_set_stream(rocblas_handle handle, hipStream_t stream);
/* column-major D = alpha op(A) op(B) + beta C */
rocblas_status rocblas_gemm_ex(rocblas_handle handle, rocblas_operation transA,
                               rocblas_operation transB, rocblas_int m, rocblas_int n,
                               rocblas_int k, const void *alpha, const void *a,
                               rocblas_datatype a_type, rocblas_int lda, const void *b,
                               rocblas_datatype b_type, rocblas_int ldb, const void *beta,
                               const void *c, rocblas_datatype c_type, rocblas_int ldc, void *d,
                               rocblas_datatype d_type, rocblas_int ldd,
                               rocblas_datatype compute_type, rocblas_gemm_algo algo,
                               int32_t solution_index, uint32_t flags);
/* optional (backend.h blas_gemm_ex) */
rocblas_status rocblas_gemm_strided_batched_ex(
    rocblas_handle handle, rocblas_operation transA, rocblas_operation transB, rocblas_int m,
    rocblas_int n, rocblas_int k, const void *alpha, const void *a, rocblas_datatype a_type,
    rocblas_int lda, rocblas_stride stride_a, const void *b, rocblas_datatype b_type,
    rocblas_int ldb, rocblas_stride stride_b, const void *beta, const void *c,
    rocblas_datatype c_type, rocblas_int ldc, rocblas_stride stride_c, void *d,
    rocblas_datatype d_type, rocblas_int ldd, rocblas_stride stride_d, rocblas_int batch_count,
    rocblas_datatype compute_type, rocblas_gemm_algo algo, int32_t solution_index, uint32_t flags);
/* a, b, c, d: device arrays of batch_count device pointers */
rocblas_status
rocblas_gemm_batched_ex(rocblas_handle handle, rocblas_operation transA, rocblas_operation transB,
                        rocblas_int m, rocblas_int n, rocblas_int k, const void *alpha,
                        const void *a, rocblas_datatype a_type, rocblas_int lda, const void *b,
                        rocblas_datatype b_type, rocblas_int ldb, const void *beta, const void *c,
                        rocblas_datatype c_type, rocblas_int ldc, void *d, rocblas_datatype d_type,
                        rocblas_int ldd, rocblas_int batch_count, rocblas_datatype compute_type,
                        rocblas_gemm_algo algo, int32_t solution_index, uint32_t flags);
const char *rocblas_status_to_string(rocblas_status status);

#endif
