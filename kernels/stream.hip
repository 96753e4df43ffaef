// stream.hip - memory bandwidth kernels (pcie.bandwidth, hmm.managed).

// STREAM triad: a = b + s * c
extern "C" __global__ void rvd_triad(float *a, const float *b, const float *c, float s, rvd_u64 n)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS)
        a[i] = b[i] + s * c[i];
}

// read every element (4-wide) and fold into one word so the reads are not
// optimised away: device read bandwidth of any pointer the GPU can reach
extern "C" __global__ void rvd_read_sum(const float4 *p, rvd_u64 n4, float *out)
{
    float acc = 0.0f;
    for (rvd_u64 i = RVD_TID; i < n4; i += RVD_NTHREADS) {
        float4 v = p[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1234.5f) // practically never: keeps the loads alive
        out[0] = acc;
}

extern "C" __global__ void rvd_fill(float *p, float v, rvd_u64 n)
{
    for (rvd_u64 i = RVD_TID; i < n; i += RVD_NTHREADS)
        p[i] = v;
}
