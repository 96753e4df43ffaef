// babelstream.hip - BabelStream's five kernels (copy, mul, add, triad, dot)
// over doubles, as the University of Bristol's BabelStream defines them, for
// gpu.mem_bandwidth (probes/probe_mem_bandwidth.c; the CPU reference and the
// expected values are in src/gpu/babelstream.c). Written here for this
// project; one source for HIP and CUDA through prelude.hip.

extern "C" __global__ void rvd_bs_init(double *a, double *b, double *c, double va, double vb,
                                       double vc, rvd_u64 n)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS) {
        a[i] = va;
        b[i] = vb;
        c[i] = vc;
    }
}

// c = a
extern "C" __global__ void rvd_bs_copy(const double *a, double *c, rvd_u64 n)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS)
        c[i] = a[i];
}

// b = scalar * c
extern "C" __global__ void rvd_bs_mul(double *b, const double *c, double scalar, rvd_u64 n)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS)
        b[i] = scalar * c[i];
}

// c = a + b
extern "C" __global__ void rvd_bs_add(const double *a, const double *b, double *c, rvd_u64 n)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS)
        c[i] = a[i] + b[i];
}

// a = b + scalar * c
extern "C" __global__ void rvd_bs_triad(double *a, const double *b, const double *c,
                                        double scalar, rvd_u64 n)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS)
        a[i] = b[i] + scalar * c[i];
}

// sums[block] = the block's part of a . b; launched with 256 threads per
// block (the shared array's size), the host adds the blocks' sums
extern "C" __global__ void rvd_bs_dot(const double *a, const double *b, double *sums, rvd_u64 n)
{
    __shared__ double part[256];
    double s = 0.0;
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS)
        s += a[i] * b[i];
    part[threadIdx.x] = s;
    for (unsigned off = blockDim.x / 2; off > 0; off /= 2) {
        __syncthreads();
        if (threadIdx.x < off)
            part[threadIdx.x] += part[threadIdx.x + off];
    }
    if (threadIdx.x == 0)
        sums[blockIdx.x] = part[0];
}
