// gemm.hip - the project's own GEMM, used when no BLAS is available:
// C[m x n] (fp32) = A[m x k] * B[k x n], row-major, fp32 accumulation.
// 16x16 tiles in shared memory; launch with 256 threads per block and
// grid = ceil(n/16) * ceil(m/16) blocks (1-D grid, the backend launches 1-D).
#define RVD_T 16

#define RVD_GEMM(NAME, TYPE, CONV)                                                         \
    extern "C" __global__ void NAME(const TYPE *A, const TYPE *B, float *C, int m, int n, \
                                    int k)                                                 \
    {                                                                                      \
        __shared__ float As[RVD_T][RVD_T];                                                 \
        __shared__ float Bs[RVD_T][RVD_T];                                                 \
        int tilesN = (n + RVD_T - 1) / RVD_T;                                              \
        int bx = blockIdx.x % tilesN, by = blockIdx.x / tilesN;                            \
        int tx = threadIdx.x % RVD_T, ty = threadIdx.x / RVD_T;                            \
        int row = by * RVD_T + ty, col = bx * RVD_T + tx;                                  \
        float acc = 0.0f;                                                                  \
        for (int t = 0; t < k; t += RVD_T) {                                               \
            As[ty][tx] = (row < m && t + tx < k) ? CONV(A[(rvd_u64)row * k + t + tx]) : 0.0f; \
            Bs[ty][tx] = (col < n && t + ty < k) ? CONV(B[(rvd_u64)(t + ty) * n + col]) : 0.0f; \
            __syncthreads();                                                               \
            for (int l = 0; l < RVD_T; l++)                                                \
                acc = fmaf(As[ty][l], Bs[l][tx], acc);                                     \
            __syncthreads();                                                               \
        }                                                                                  \
        if (row < m && col < n)                                                            \
            C[(rvd_u64)row * n + col] = acc;                                               \
    }

#define RVD_ID(x) (x)
RVD_GEMM(rvd_gemm_f16, rvd_u16, rvd_half_to_float)
RVD_GEMM(rvd_gemm_bf16, rvd_u16, rvd_bf16_to_float)
RVD_GEMM(rvd_gemm_f32, float, RVD_ID)
