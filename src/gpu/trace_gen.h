/* trace_gen.h - the generated --trace-gpu wrappers (gpu_trace.h): from a list
 * entry X(ret, fn, T1, T2, ...) (X0(ret, fn) for a function of no
 * arguments), GT_WRAPPER makes
 *
 *     static ret tw_fn(T1 a1, T2 a2, ...)
 *
 * which records each argument by its type (GT_REC, a _Generic: an integer
 * type it does not know falls to the pointer branch and fails the build),
 * calls REAL.fn and writes the line. The includer defines GT_EXTRA_TYPES,
 * the _Generic associations of its own handle types (each "T: fn," with fn
 * taking (struct gpu_trace_call *, T)). The same list binds the functions, so
 * a wrapper whose parameter list differs from the prototype (hip_api.h) does
 * not assign to the bound pointer and the build fails. */
#ifndef RVD_GPU_TRACE_GEN_H
#define RVD_GPU_TRACE_GEN_H

#include "gpu_trace.h"

/* the number of arguments, 1 to 32 */
#define GT_N(...)                                                                                  \
    GT_N_(__VA_ARGS__, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, \
          13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define GT_N_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18,     \
              _19, _20, _21, _22, _23, _24, _25, _26, _27, _28, _29, _30, _31, _32, N, ...)        \
    N
#define GT_CAT(a, b) GT_CAT_(a, b)
#define GT_CAT_(a, b) a##b
#define GT_COMMA() ,
#define GT_NONE()
/* GT_MAP(m, sep, T1, ..., Tn): m(T1, 1) sep() m(T2, 2) ... m(Tn, n) */
#define GT_MAP(m, s, ...) GT_CAT(GT_MAP_, GT_N(__VA_ARGS__))(m, s, __VA_ARGS__)
#define GT_MAP_1(m, s, t) m(t, 1)
#define GT_MAP_2(m, s, t1, t2) GT_MAP_1(m, s, t1) s() m(t2, 2)
#define GT_MAP_3(m, s, t1, t2, t3) GT_MAP_2(m, s, t1, t2) s() m(t3, 3)
#define GT_MAP_4(m, s, t1, t2, t3, t4) GT_MAP_3(m, s, t1, t2, t3) s() m(t4, 4)
#define GT_MAP_5(m, s, t1, t2, t3, t4, t5) GT_MAP_4(m, s, t1, t2, t3, t4) s() m(t5, 5)
#define GT_MAP_6(m, s, t1, t2, t3, t4, t5, t6) GT_MAP_5(m, s, t1, t2, t3, t4, t5) s() m(t6, 6)
#define GT_MAP_7(m, s, t1, t2, t3, t4, t5, t6, t7)                                                 \
    GT_MAP_6(m, s, t1, t2, t3, t4, t5, t6) s() m(t7, 7)
#define GT_MAP_8(m, s, t1, t2, t3, t4, t5, t6, t7, t8)                                             \
    GT_MAP_7(m, s, t1, t2, t3, t4, t5, t6, t7) s() m(t8, 8)
#define GT_MAP_9(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9)                                         \
    GT_MAP_8(m, s, t1, t2, t3, t4, t5, t6, t7, t8) s() m(t9, 9)
#define GT_MAP_10(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10)                                   \
    GT_MAP_9(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9) s() m(t10, 10)
#define GT_MAP_11(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11)                              \
    GT_MAP_10(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10) s() m(t11, 11)
#define GT_MAP_12(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12)                         \
    GT_MAP_11(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11) s() m(t12, 12)
#define GT_MAP_13(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13)                    \
    GT_MAP_12(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12) s() m(t13, 13)
#define GT_MAP_14(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14)               \
    GT_MAP_13(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13) s() m(t14, 14)
#define GT_MAP_15(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15)          \
    GT_MAP_14(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14) s() m(t15, 15)
#define GT_MAP_16(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16)     \
    GT_MAP_15(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15) s() m(t16, 16)
#define GT_MAP_17(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17)                                                                             \
    GT_MAP_16(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16)         \
    s() m(t17, 17)
#define GT_MAP_18(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18)                                                                        \
    GT_MAP_17(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17)    \
    s() m(t18, 18)
#define GT_MAP_19(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19)                                                                   \
    GT_MAP_18(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18)                                                                                 \
    s() m(t19, 19)
#define GT_MAP_20(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20)                                                              \
    GT_MAP_19(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19)                                                                            \
    s() m(t20, 20)
#define GT_MAP_21(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21)                                                         \
    GT_MAP_20(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20)                                                                       \
    s() m(t21, 21)
#define GT_MAP_22(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21, t22)                                                    \
    GT_MAP_21(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20, t21)                                                                  \
    s() m(t22, 22)
#define GT_MAP_23(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21, t22, t23)                                               \
    GT_MAP_22(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20, t21, t22)                                                             \
    s() m(t23, 23)
#define GT_MAP_24(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21, t22, t23, t24)                                          \
    GT_MAP_23(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20, t21, t22, t23)                                                        \
    s() m(t24, 24)
#define GT_MAP_25(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21, t22, t23, t24, t25)                                     \
    GT_MAP_24(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20, t21, t22, t23, t24)                                                   \
    s() m(t25, 25)
#define GT_MAP_26(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21, t22, t23, t24, t25, t26)                                \
    GT_MAP_25(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20, t21, t22, t23, t24, t25)                                              \
    s() m(t26, 26)
#define GT_MAP_27(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27)                           \
    GT_MAP_26(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20, t21, t22, t23, t24, t25, t26)                                         \
    s() m(t27, 27)
#define GT_MAP_28(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28)                      \
    GT_MAP_27(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20, t21, t22, t23, t24, t25, t26, t27)                                    \
    s() m(t28, 28)
#define GT_MAP_29(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29)                 \
    GT_MAP_28(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28)                               \
    s() m(t29, 29)
#define GT_MAP_30(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29, t30)            \
    GT_MAP_29(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29)                          \
    s() m(t30, 30)
#define GT_MAP_31(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29, t30, t31)       \
    GT_MAP_30(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29, t30)                     \
    s() m(t31, 31)
#define GT_MAP_32(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16,     \
                  t17, t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29, t30, t31, t32)  \
    GT_MAP_31(m, s, t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12, t13, t14, t15, t16, t17,    \
              t18, t19, t20, t21, t22, t23, t24, t25, t26, t27, t28, t29, t30, t31)                \
    s() m(t32, 32)

/* one argument's record, chosen by its type */
static inline void gt_int(struct gpu_trace_call *c, long long v)
{
    gpu_trace_rec(c, GT_INT, v, 0, 0);
}
static inline void gt_uint(struct gpu_trace_call *c, unsigned long long v)
{
    gpu_trace_rec(c, GT_UINT, 0, v, 0);
}
/* the pointer kinds: {recorder, its parameter type, the kind recorded};
 * gt_out_handle: a pointer to a pointer or to an opaque handle */
#define GT_PTR_KINDS(X)                                                                            \
    X(gt_ptr, const void *, GT_PTR)                                                                \
    X(gt_buf, const char *, GT_BUF)                                                                \
    X(gt_str, const char *, GT_STR)                                                                \
    X(gt_strv, const char **, GT_STRV)                                                             \
    X(gt_out_int, const int *, GT_OUT_INT)                                                         \
    X(gt_out_uint, const unsigned *, GT_OUT_UINT)                                                  \
    X(gt_out_long, const long *, GT_OUT_LONG)                                                      \
    X(gt_out_size, const size_t *, GT_OUT_SIZE)                                                    \
    X(gt_out_float, const float *, GT_OUT_FLOAT)                                                   \
    X(gt_out_handle, const void *, GT_OUT_PTR)
#define GT_PTR_REC(name, T, K)                                                                     \
    static inline void name(struct gpu_trace_call *c, T p)                                         \
    {                                                                                              \
        gpu_trace_rec(c, K, 0, 0, p);                                                              \
    }
GT_PTR_KINDS(GT_PTR_REC)

#define GT_REC(c, x)                                                                               \
    _Generic((x),                                                                                  \
        int: gt_int,                                                                               \
        long: gt_int,                                                                              \
        long long: gt_int,                                                                         \
        unsigned: gt_uint,                                                                         \
        unsigned long: gt_uint,                                                                    \
        unsigned long long: gt_uint,                                                               \
        int *: gt_out_int,                                                                         \
        unsigned *: gt_out_uint,                                                                   \
        long *: gt_out_long,                                                                       \
        size_t *: gt_out_size,                                                                     \
        float *: gt_out_float,                                                                     \
        void **: gt_out_handle,                                                                    \
        char *: gt_buf,                                                                            \
        const char *: gt_str,                                                                      \
        const char **: gt_strv,                                                                    \
        GT_EXTRA_TYPES default: gt_ptr)((c), (x))

#define GT_PARAM(t, i) t a##i
#define GT_ARG(t, i) a##i
#define GT_RECI(t, i) GT_REC(&c_, a##i);
#define GT_END(c, r, name)                                                                         \
    _Generic((r), const char *: gpu_trace_end_str, default: gpu_trace_end_status)((c), (r), (name))

/* REAL: the struct holding the real pointers; LIB: the trace's library
 * column; FNAME: the call's name in the trace (#fn but for GT_WRAPPER_AS);
 * NAME: a const char *(*)(unsigned) spelling a failed status, or NULL */
#define GT_BODY(REAL, LIB, FNAME, NAME, r, fn, RECS, ARGS)                                         \
    {                                                                                              \
        struct gpu_trace_call c_;                                                                  \
        gpu_trace_begin(&c_, LIB, FNAME);                                                          \
        RECS r ret_ = REAL.fn ARGS;                                                                \
        GT_END(&c_, ret_, NAME);                                                                   \
        return ret_;                                                                               \
    }
/* GT_WRAPPER_AS: the trace names the call FNAME, an expression (the Lt
 * bindings share one set of wrappers and name each call by its library) */
#define GT_WRAPPER_AS(REAL, LIB, FNAME, NAME, r, fn, ...)                                          \
    static r tw_##fn(GT_MAP(GT_PARAM, GT_COMMA, __VA_ARGS__))                                      \
        GT_BODY(REAL, LIB, FNAME, NAME, r, fn, GT_MAP(GT_RECI, GT_NONE, __VA_ARGS__),              \
                (GT_MAP(GT_ARG, GT_COMMA, __VA_ARGS__)))
#define GT_WRAPPER(REAL, LIB, NAME, r, fn, ...)                                                    \
    GT_WRAPPER_AS(REAL, LIB, #fn, NAME, r, fn, __VA_ARGS__)
#define GT_WRAPPER0(REAL, LIB, NAME, r, fn)                                                        \
    static r tw_##fn(void) GT_BODY(REAL, LIB, #fn, NAME, r, fn, , ())

#endif
