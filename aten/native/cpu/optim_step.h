/* The element loops of the multi-tensor optimizer steps (aten/native/cpu/fused_optim.pyx), in C so
 * that each compiles twice: for the baseline ISA and, chosen at run time by ember_use_avx2(), for
 * AVX2. The AVX2 copies are compiled without FMA, so no multiply-add is contracted: every lane
 * rounds after each operation exactly as the single-tensor ops do, and both copies give the same
 * bits. The options are constants in each instantiated loop (no branch inside it), so gcc
 * vectorises the loops; lerp's two formulas are both computed and one selected.
 *
 * c[] holds the update's scalars in double, rounded to the element type here as the ops round
 * their Scalar arguments. Adam: c[0] grad scale, c[1] weight decay (L2) or 1 - lr * weight_decay
 * (AdamW), c[2] 1 - beta1, c[3] beta2, c[4] 1 - beta2, c[5] sqrt of the second bias correction,
 * c[6] eps, c[7] -lr / the first bias correction. SGD: c[0] grad scale, c[1] weight decay,
 * c[2] momentum, c[3] 1 - dampening, c[4] -lr. */
#ifndef EMBER_OPTIM_STEP_H
#define EMBER_OPTIM_STEP_H
#include <math.h>
#include <stddef.h>
#include "aten/native/cpu/vec_math.h"

enum { EMBER_ADAM_L2 = 1, EMBER_ADAM_DECOUPLED = 2, EMBER_ADAM_AMSGRAD = 4, EMBER_ADAM_SCALED = 8,
       EMBER_ADAM_MAXIMIZE = 16 };
enum { EMBER_SGD_DECAY = 1, EMBER_SGD_MOMENTUM = 2, EMBER_SGD_FIRST = 4, EMBER_SGD_NESTEROV = 8,
       EMBER_SGD_SCALED = 16, EMBER_SGD_MAXIMIZE = 32 };

#define EMBER_MAXIMUM(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) > (b) ? (a) : (b))

#define EMBER_ADAM_BODY(T, SQRT)                                                                       \
    const T scale = (T)c[0], wd = (T)c[1], w = (T)c[2], b2 = (T)c[3], one_b2 = (T)c[4];                \
    const T bc2 = (T)c[5], eps = (T)c[6], step = (T)c[7], one_w = (T)1 - w;                            \
    const int near = -0.5 < w && w < 0.5;                                                              \
    for (ptrdiff_t i = begin; i < end; i++) {                                                          \
        T gi = g[i], pi = p[i], mi = m[i], vi, d;                                                      \
        if (flags & EMBER_ADAM_SCALED) { gi = gi / scale; g[i] = gi; }                                 \
        if (flags & EMBER_ADAM_MAXIMIZE) gi = -gi;                                                     \
        if (flags & EMBER_ADAM_DECOUPLED) pi = pi * wd;                                                \
        if (flags & EMBER_ADAM_L2) gi = gi + wd * pi;                                                  \
        T near_m = mi + w * (gi - mi), far_m = gi - (gi - mi) * one_w;                                 \
        mi = near ? near_m : far_m;                                                                    \
        vi = v[i] * b2;                                                                                \
        vi = vi + one_b2 * gi * gi;                                                                    \
        d = vi;                                                                                        \
        if (flags & EMBER_ADAM_AMSGRAD) { d = EMBER_MAXIMUM(vmax[i], vi); vmax[i] = d; }               \
        d = SQRT(d) / bc2;                                                                             \
        d = d + eps;                                                                                   \
        m[i] = mi;                                                                                     \
        v[i] = vi;                                                                                     \
        p[i] = pi + step * mi / d;                                                                     \
    }

#define EMBER_SGD_BODY(T)                                                                              \
    const T scale = (T)c[0], wd = (T)c[1], mom = (T)c[2], damp = (T)c[3], step = (T)c[4];              \
    for (ptrdiff_t i = begin; i < end; i++) {                                                          \
        T gi = g[i], bi;                                                                               \
        if (flags & EMBER_SGD_SCALED) { gi = gi / scale; g[i] = gi; }                                  \
        if (flags & EMBER_SGD_MAXIMIZE) gi = -gi;                                                      \
        if (flags & EMBER_SGD_DECAY) gi = gi + wd * p[i];                                              \
        if (flags & EMBER_SGD_MOMENTUM) {                                                              \
            if (flags & EMBER_SGD_FIRST) bi = gi;                                                      \
            else { bi = buf[i] * mom; bi = bi + damp * gi; }                                           \
            buf[i] = bi;                                                                               \
            gi = (flags & EMBER_SGD_NESTEROV) ? gi + mom * bi : bi;                                    \
        }                                                                                              \
        p[i] = p[i] + step * gi;                                                                       \
    }

/* One always-inlined body per element type; the dispatchers below call it with constant flags. */
#define EMBER_OPTIM_BODIES(T, SUFFIX, SQRT)                                                            \
    static inline __attribute__((always_inline)) void ember_adam_body_##SUFFIX(                        \
            T* p, T* g, T* m, T* v, T* vmax, ptrdiff_t begin, ptrdiff_t end, const double* c,          \
            const int flags) { EMBER_ADAM_BODY(T, SQRT) }                                              \
    static inline __attribute__((always_inline)) void ember_sgd_body_##SUFFIX(                         \
            T* p, T* g, T* buf, ptrdiff_t begin, ptrdiff_t end, const double* c, const int flags) {    \
        EMBER_SGD_BODY(T) }

EMBER_OPTIM_BODIES(float, f32, sqrtf)
EMBER_OPTIM_BODIES(double, f64, sqrt)

/* Every flag combination the kernels pass, each a loop of its own (an Adam step without weight decay
 * is passed as decoupled with the factor 1, which multiplies exactly). */
#define EMBER_ADAM_CASE(S, F) case F: ember_adam_body_##S(p, g, m, v, vmax, begin, end, c, F); break;
#define EMBER_ADAM_CASES4(S, B) EMBER_ADAM_CASE(S, B) EMBER_ADAM_CASE(S, B | EMBER_ADAM_AMSGRAD)               \
    EMBER_ADAM_CASE(S, B | EMBER_ADAM_SCALED) EMBER_ADAM_CASE(S, B | EMBER_ADAM_AMSGRAD | EMBER_ADAM_SCALED)
#define EMBER_ADAM_CASES(S) EMBER_ADAM_CASES4(S, EMBER_ADAM_L2) EMBER_ADAM_CASES4(S, EMBER_ADAM_DECOUPLED)   \
    EMBER_ADAM_CASES4(S, EMBER_ADAM_L2 | EMBER_ADAM_MAXIMIZE)                                                 \
    EMBER_ADAM_CASES4(S, EMBER_ADAM_DECOUPLED | EMBER_ADAM_MAXIMIZE)

#define EMBER_SGD_CASE(S, F) case F: ember_sgd_body_##S(p, g, buf, begin, end, c, F); break;
#define EMBER_SGD_CASES5(S, B) EMBER_SGD_CASE(S, B) EMBER_SGD_CASE(S, B | EMBER_SGD_MOMENTUM)                 \
    EMBER_SGD_CASE(S, B | EMBER_SGD_MOMENTUM | EMBER_SGD_FIRST)                                               \
    EMBER_SGD_CASE(S, B | EMBER_SGD_MOMENTUM | EMBER_SGD_NESTEROV)                                            \
    EMBER_SGD_CASE(S, B | EMBER_SGD_MOMENTUM | EMBER_SGD_FIRST | EMBER_SGD_NESTEROV)
#define EMBER_SGD_CASES20(S, B) EMBER_SGD_CASES5(S, B) EMBER_SGD_CASES5(S, B | EMBER_SGD_DECAY)               \
    EMBER_SGD_CASES5(S, B | EMBER_SGD_SCALED) EMBER_SGD_CASES5(S, B | EMBER_SGD_DECAY | EMBER_SGD_SCALED)
#define EMBER_SGD_CASES(S) EMBER_SGD_CASES20(S, 0) EMBER_SGD_CASES20(S, EMBER_SGD_MAXIMIZE)

#define EMBER_OPTIM_LOOPS(T, S, ISA, ATTR)                                                             \
    ATTR static void ember_adam_##S##_##ISA(T* p, T* g, T* m, T* v, T* vmax, ptrdiff_t begin,          \
                                            ptrdiff_t end, const double* c, int flags) {               \
        switch (flags) { EMBER_ADAM_CASES(S) }                                                         \
    }                                                                                                  \
    ATTR static void ember_sgd_##S##_##ISA(T* p, T* g, T* buf, ptrdiff_t begin, ptrdiff_t end,         \
                                           const double* c, int flags) {                               \
        switch (flags) { EMBER_SGD_CASES(S) }                                                          \
    }

EMBER_OPTIM_LOOPS(float, f32, base, )
EMBER_OPTIM_LOOPS(double, f64, base, )
#ifdef EMBER_HAVE_AVX2
EMBER_OPTIM_LOOPS(float, f32, avx2, __attribute__((target("avx2"))))
EMBER_OPTIM_LOOPS(double, f64, avx2, __attribute__((target("avx2"))))
#endif

/* The step over elements [begin, end) of one parameter, in the ISA this CPU runs. */
#define EMBER_OPTIM_ENTRIES(T, S)                                                                      \
    static void ember_adam_##S(T* p, T* g, T* m, T* v, T* vmax, ptrdiff_t begin, ptrdiff_t end,        \
                               const double* c, int flags) {                                           \
        EMBER_ISA_PICK(ember_adam_##S, p, g, m, v, vmax, begin, end, c, flags) }                       \
    static void ember_sgd_##S(T* p, T* g, T* buf, ptrdiff_t begin, ptrdiff_t end, const double* c,     \
                              int flags) {                                                             \
        EMBER_ISA_PICK(ember_sgd_##S, p, g, buf, begin, end, c, flags) }

EMBER_OPTIM_ENTRIES(float, f32)
EMBER_OPTIM_ENTRIES(double, f64)

#endif
