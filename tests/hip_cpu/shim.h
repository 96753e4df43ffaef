// shim.h - the four bit-cast intrinsics kernels/*.hip use that HIP-CPU's
// headers lack (hiprtc and NVRTC have them built in). Nothing else is
// shimmed: every other name the kernels use comes from HIP-CPU itself.
#include <cstring>

template <typename To, typename From> __device__ inline To rvd_bit_cast(From v)
{
    static_assert(sizeof(To) == sizeof(From), "a bit cast keeps the size");
    To r;
    std::memcpy(&r, &v, sizeof(r));
    return r;
}
__device__ inline float __uint_as_float(unsigned u)
{
    return rvd_bit_cast<float>(u);
}
__device__ inline unsigned __float_as_uint(float f)
{
    return rvd_bit_cast<unsigned>(f);
}
__device__ inline float __int_as_float(int i)
{
    return rvd_bit_cast<float>(i);
}
__device__ inline int __float_as_int(float f)
{
    return rvd_bit_cast<int>(f);
}
