// sync.hip - kernels for the synchronisation probe (sync.latency).

// does nothing: launch overhead and synchronise latency
extern "C" __global__ void rvd_null(int *p)
{
    if (p && RVD_TID == 0x7fffffff)
        p[0] = 1;
}

// writer on a blocking stream: slow on purpose (spins), then writes the tag
extern "C" __global__ void rvd_slow_write(int *buf, int n, int tag, long long spins)
{
    rvd_u64 i = RVD_TID;
    volatile long long x = 0;
    for (long long k = 0; k < spins; k++)
        x = x + k;
    if (i < (rvd_u64)n)
        buf[i] = tag;
}

// reader on the null stream: counts elements that do not hold the tag
extern "C" __global__ void rvd_check(const int *buf, int n, int tag, int *bad)
{
    rvd_u64 i = RVD_TID;
    if (i < (rvd_u64)n && buf[i] != tag)
        atomicAdd(bad, 1);
}

// never returns unless *flag becomes nonzero (fault injection: a hung kernel)
extern "C" __global__ void rvd_spin_forever(volatile int *flag)
{
    while (*flag == 0) {
    }
}
