/* The leaf of a column sum (aten/native/cpu/reduce_sum.pyx, _cols): acc[c] += x[r, c] for rows
 * r = 0..nrows-1 in order, each column's additions in the same order as a row-by-row loop (so the
 * same bits), with a block of columns held in registers across the rows instead of loaded and
 * stored once per row. In C so that it compiles twice: for the baseline ISA and, chosen at run
 * time by ember_use_avx2(), for AVX2 (no FMA: there is nothing to contract). col_step 0 is a
 * broadcast input (an expanded tensor): every column adds the row's one element. */
#ifndef EMBER_COL_SUM_H
#define EMBER_COL_SUM_H
#include <stddef.h>
#include "aten/native/cpu/vec_math.h"

#define EMBER_COL_BLOCK 32

#define EMBER_COL_SUM(T, S, ISA, ATTR)                                                                 \
    ATTR static void ember_col_sum_##S##_##ISA(T* acc, const T* x, ptrdiff_t ncols, ptrdiff_t col_step, \
                                               ptrdiff_t nrows, ptrdiff_t row_step) {                  \
        ptrdiff_t c0, c, r;                                                                            \
        if (col_step == 0) {                                                                           \
            for (r = 0; r < nrows; r++) {                                                              \
                const T v = x[r * row_step];                                                           \
                for (c = 0; c < ncols; c++) acc[c] += v;                                               \
            }                                                                                          \
            return;                                                                                    \
        }                                                                                              \
        for (c0 = 0; c0 + EMBER_COL_BLOCK <= ncols; c0 += EMBER_COL_BLOCK) {                           \
            T loc[EMBER_COL_BLOCK];                                                                    \
            for (c = 0; c < EMBER_COL_BLOCK; c++) loc[c] = acc[c0 + c];                                \
            for (r = 0; r < nrows; r++)                                                                \
                for (c = 0; c < EMBER_COL_BLOCK; c++) loc[c] += x[r * row_step + c0 + c];              \
            for (c = 0; c < EMBER_COL_BLOCK; c++) acc[c0 + c] = loc[c];                                \
        }                                                                                              \
        for (r = 0; r < nrows; r++)                                                                    \
            for (c = c0; c < ncols; c++) acc[c] += x[r * row_step + c];                                \
    }

EMBER_COL_SUM(float, f32, base, )
EMBER_COL_SUM(double, f64, base, )
#ifdef EMBER_HAVE_AVX2
EMBER_COL_SUM(float, f32, avx2, __attribute__((target("avx2"))))
EMBER_COL_SUM(double, f64, avx2, __attribute__((target("avx2"))))
#endif

static void ember_col_sum_f32(float* acc, const float* x, ptrdiff_t ncols, ptrdiff_t col_step, ptrdiff_t nrows,
                              ptrdiff_t row_step) {
    EMBER_ISA_PICK(ember_col_sum_f32, acc, x, ncols, col_step, nrows, row_step) }
static void ember_col_sum_f64(double* acc, const double* x, ptrdiff_t ncols, ptrdiff_t col_step, ptrdiff_t nrows,
                              ptrdiff_t row_step) {
    EMBER_ISA_PICK(ember_col_sum_f64, acc, x, ncols, col_step, nrows, row_step) }

#endif
