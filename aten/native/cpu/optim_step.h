/* The element loops of the multi-tensor optimizer steps (aten/native/cpu/fused_optim.pyx), in C so
 * that each compiles twice: for the baseline ISA and, chosen at run time by ember_use_avx2(), for
 * AVX2. The AVX2 copies are compiled without FMA, so no multiply-add is contracted: every lane
 * rounds after each operation exactly as the single-tensor ops do, and both copies give the same
 * bits. The options are constants in each instantiated loop (no branch inside it), so gcc
 * vectorises the loops; lerp's two formulas are both computed and one selected.
 * Each element's formulas are optim_formulas.h's, which the CUDA kernels share. */
#ifndef EMBER_OPTIM_STEP_H
#define EMBER_OPTIM_STEP_H
#include <math.h>
#include <stddef.h>
#include "aten/native/cpu/vec_math.h"
#include "aten/native/optim_formulas.h"

#define EMBER_ADAM_BODY(T, SQRT)                                                                       \
    EMBER_ADAM_CONSTANTS(T)                                                                            \
    for (ptrdiff_t i = begin; i < end; i++) { EMBER_ADAM_ELEMENT(T, SQRT, i) }

#define EMBER_SGD_BODY(T)                                                                              \
    EMBER_SGD_CONSTANTS(T)                                                                             \
    for (ptrdiff_t i = begin; i < end; i++) { EMBER_SGD_ELEMENT(T, i) }

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
