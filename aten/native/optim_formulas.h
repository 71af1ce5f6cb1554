/* One element of the multi-tensor optimizer steps, as the single-tensor updates compute it
 * (torch/optim/adam.py, sgd.py: lerp_, mul_, addcmul_, sqrt, div, add_ and addcdiv_, each rounding
 * once): plain C shared by the CPU loops (aten/native/cpu/optim_step.h) and the CUDA kernels
 * (aten/native/cuda/kernels/fused_optim.cu), which wrap them in their own loops.
 *
 * c[] holds the update's scalars in double, rounded to the element type here as the ops round
 * their Scalar arguments. Adam: c[0] grad scale, c[1] weight decay (L2) or 1 - lr * weight_decay
 * (AdamW), c[2] 1 - beta1, c[3] beta2, c[4] 1 - beta2, c[5] sqrt of the second bias correction,
 * c[6] eps, c[7] -lr / the first bias correction. SGD: c[0] grad scale, c[1] weight decay,
 * c[2] momentum, c[3] 1 - dampening, c[4] -lr. `flags` says which parts of the update run. */
#ifndef EMBER_OPTIM_FORMULAS_H
#define EMBER_OPTIM_FORMULAS_H

enum { EMBER_ADAM_L2 = 1, EMBER_ADAM_DECOUPLED = 2, EMBER_ADAM_AMSGRAD = 4, EMBER_ADAM_SCALED = 8,
       EMBER_ADAM_MAXIMIZE = 16 };
enum { EMBER_SGD_DECAY = 1, EMBER_SGD_MOMENTUM = 2, EMBER_SGD_FIRST = 4, EMBER_SGD_NESTEROV = 8,
       EMBER_SGD_SCALED = 16, EMBER_SGD_MAXIMIZE = 32 };

#define EMBER_MAXIMUM(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) > (b) ? (a) : (b))

/* lerp_ picks one of two formulas by the weight, as PyTorch's: both are computed and one selected,
 * so a vectorising compiler keeps the loop branch-free. */
#define EMBER_ADAM_CONSTANTS(T)                                                                        \
    const T scale = (T)c[0], wd = (T)c[1], w = (T)c[2], b2 = (T)c[3], one_b2 = (T)c[4];                \
    const T bc2 = (T)c[5], eps = (T)c[6], step = (T)c[7], one_w = (T)1 - w;                            \
    const int near = -0.5 < w && w < 0.5;

#define EMBER_ADAM_ELEMENT(T, SQRT, i)                                                                 \
    T gi = g[i], pi = p[i], mi = m[i], vi, d;                                                          \
    if (flags & EMBER_ADAM_SCALED) { gi = gi / scale; g[i] = gi; }                                     \
    if (flags & EMBER_ADAM_MAXIMIZE) gi = -gi;                                                         \
    if (flags & EMBER_ADAM_DECOUPLED) pi = pi * wd;                                                    \
    if (flags & EMBER_ADAM_L2) gi = gi + wd * pi;                                                      \
    T near_m = mi + w * (gi - mi), far_m = gi - (gi - mi) * one_w;                                     \
    mi = near ? near_m : far_m;                                                                        \
    vi = v[i] * b2;                                                                                    \
    vi = vi + one_b2 * gi * gi;                                                                        \
    d = vi;                                                                                            \
    if (flags & EMBER_ADAM_AMSGRAD) { d = EMBER_MAXIMUM(vmax[i], vi); vmax[i] = d; }                   \
    d = SQRT(d) / bc2;                                                                                 \
    d = d + eps;                                                                                       \
    m[i] = mi;                                                                                         \
    v[i] = vi;                                                                                         \
    p[i] = pi + step * mi / d;

#define EMBER_SGD_CONSTANTS(T)                                                                         \
    const T scale = (T)c[0], wd = (T)c[1], mom = (T)c[2], damp = (T)c[3], step = (T)c[4];

#define EMBER_SGD_ELEMENT(T, i)                                                                        \
    T gi = g[i], bi;                                                                                   \
    if (flags & EMBER_SGD_SCALED) { gi = gi / scale; g[i] = gi; }                                      \
    if (flags & EMBER_SGD_MAXIMIZE) gi = -gi;                                                          \
    if (flags & EMBER_SGD_DECAY) gi = gi + wd * p[i];                                                  \
    if (flags & EMBER_SGD_MOMENTUM) {                                                                  \
        if (flags & EMBER_SGD_FIRST) bi = gi;                                                          \
        else { bi = buf[i] * mom; bi = bi + damp * gi; }                                               \
        buf[i] = bi;                                                                                   \
        gi = (flags & EMBER_SGD_NESTEROV) ? gi + mom * bi : bi;                                        \
    }                                                                                                  \
    p[i] = p[i] + step * gi;

#endif
