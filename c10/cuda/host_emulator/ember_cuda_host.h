// Ember's CUDA host emulator: the CUDA C dialect Ember's kernels use, compiled by g++ and run on
// the CPU (c10/cuda/host_driver.py compiles each kernel source with this header forced first).
// It exists so the kernels and their launchers run in CI, which has no GPU: a pass here checks the
// indexing, the barriers and the launch arguments, not the GPU's speed, memory model or rounding.
//
// A launch runs the grid's blocks one after another. The threads of a block run one after
// another too, each to its next __syncthreads; a kernel with barriers runs each thread on its own
// stack, so it can be suspended there. Threads of one block waiting at different __syncthreads
// calls are reported as an error; threads that have returned count as arrived, as on current GPUs.
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#define EMBER_CUDA_HOST 1
#define __global__ __attribute__((ember_kernel))
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __shared__ static
#define __constant__ static

struct uint3 { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

static uint3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;

using std::isinf;
using std::isnan;
using std::isfinite;
using std::min;
using std::max;

template <typename T> __forceinline__ T __ldg(const T* p) { return *p; }

// Blocks run one at a time, so read-modify-write is atomic already.
template <typename T, typename U> __forceinline__ T atomicAdd(T* address, U value) {
  T old = *address; *address = (T)(old + value); return old;
}
template <typename T, typename U> __forceinline__ T atomicMax(T* address, U value) {
  T old = *address; if (value > old) *address = value; return old;
}
template <typename T, typename U> __forceinline__ T atomicMin(T* address, U value) {
  T old = *address; if (value < old) *address = value; return old;
}
template <typename T> __forceinline__ T atomicExch(T* address, T value) { T old = *address; *address = value; return old; }
template <typename T> __forceinline__ T atomicCAS(T* address, T compare, T value) {
  T old = *address; if (old == compare) *address = value; return old;
}
__forceinline__ unsigned int __float_as_uint(float f) { unsigned int u; memcpy(&u, &f, sizeof u); return u; }
__forceinline__ float __uint_as_float(unsigned int u) { float f; memcpy(&f, &u, sizeof f); return f; }
__forceinline__ unsigned int __umulhi(unsigned int a, unsigned int b) {
  return (unsigned int)(((unsigned long long)a * b) >> 32);
}
__forceinline__ unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
__forceinline__ float __int_as_float(int v) { float f; memcpy(&f, &v, 4); return f; }
__forceinline__ int __float_as_int(float f) { int v; memcpy(&v, &f, 4); return v; }
__forceinline__ double __longlong_as_double(long long v) { double d; memcpy(&d, &v, 8); return d; }
__forceinline__ long long __double_as_longlong(double d) { long long v; memcpy(&v, &d, 8); return v; }
__forceinline__ float rsqrtf(float x) { return 1.0f / sqrtf(x); }
__forceinline__ double rsqrt(double x) { return 1.0 / sqrt(x); }
__forceinline__ float __expf(float x) { return expf(x); }
__forceinline__ float __logf(float x) { return logf(x); }
__forceinline__ float __fdividef(float a, float b) { return a / b; }
__forceinline__ float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
__forceinline__ double normcdf(double x) { return 0.5 * erfc(-x / sqrt(2.0)); }
__forceinline__ double cospi(double x) { return cos(M_PI * x); }
__forceinline__ double sinpi(double x) { return sin(M_PI * x); }
__forceinline__ float cospif(float x) { return (float)cospi(x); }
__forceinline__ float sinpif(float x) { return (float)sinpi(x); }
__forceinline__ float normcdff(float x) { return 0.5f * erfcf(-x / sqrtf(2.0f)); }

// CUDA has erfinv; the C library does not: an initial guess refined by Newton steps on erf.
__forceinline__ double erfinv(double y) {
  if (!(y > -1.0 && y < 1.0)) {
    if (y == 1.0) return INFINITY;
    if (y == -1.0) return -INFINITY;
    return NAN;
  }
  const double w = -log((1.0 - y) * (1.0 + y));
  double x = w < 5.0 ? (w - 2.5) * 2.81022636e-08 + 3.43273939e-07 : sqrt(w) - 3.0;
  if (w < 5.0) {
    const double c[] = {-3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
                        0.246640727, 1.50140941};
    for (double k : c) x = x * (w - 2.5) + k;
  } else {
    x = (sqrt(w) - 3.0) * -0.000200214257 + 0.000100950558;
    const double c[] = {0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                        1.00167406, 2.83297682};
    for (double k : c) x = x * (sqrt(w) - 3.0) + k;
  }
  x *= y;
  for (int i = 0; i < 3; ++i) x -= (erf(x) - y) / (2.0 / sqrt(M_PI) * exp(-x * x));
  return x;
}
__forceinline__ float erfinvf(float y) { return (float)erfinv((double)y); }

namespace ember_emu {

typedef void (*Entry)(void**);

// Switching threads: on x86-64 a hand-written switch of the callee-saved registers (swapcontext
// costs a system call per switch, and reductions switch millions of times); elsewhere ucontext.
#if defined(__x86_64__)
extern "C" void ember_emu_switch(void** save_sp, void* load_sp);
asm(".text\n.p2align 4\n.hidden ember_emu_switch\n.globl ember_emu_switch\n"
    ".type ember_emu_switch,@function\nember_emu_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n  ret\n"
    ".size ember_emu_switch, .-ember_emu_switch\n");
struct Context { void* sp; };
static void start_on(Context& c, char* stack, size_t size, void (*start)()) {
  uintptr_t top = ((uintptr_t)(stack + size)) & ~(uintptr_t)15;
  void** sp = (void**)top;
  *--sp = nullptr;             // the return address `start` never uses: it never returns
  *--sp = (void*)start;        // where the switch's `ret` lands
  for (int i = 0; i < 6; ++i) *--sp = nullptr;   // rbp, rbx, r12-r15
  c.sp = sp;
}
static void switch_to(Context& from, Context& to) { ember_emu_switch(&from.sp, to.sp); }
#else
struct Context { ucontext_t uc; };
static void start_on(Context& c, char* stack, size_t size, void (*start)()) {
  getcontext(&c.uc);
  c.uc.uc_stack.ss_sp = stack;
  c.uc.uc_stack.ss_size = size;
  c.uc.uc_link = nullptr;
  makecontext(&c.uc, start, 0);
}
static void switch_to(Context& from, Context& to) { swapcontext(&from.uc, &to.uc); }
#endif

struct Fiber {
  Context context;
  uint3 thread;
  int state;          // 0 runnable, 1 at a barrier, 2 finished
  void* barrier_site;
};

static std::vector<Fiber> fibers;
static std::vector<char> stacks;
static Context scheduler;
static size_t current;
static Entry entry;
static void** arguments;
static const char* error;
static const size_t kStack = 64 * 1024;

static uint3 thread_of(size_t linear) {
  uint3 t;
  t.x = (unsigned int)(linear % blockDim.x);
  t.y = (unsigned int)(linear / blockDim.x % blockDim.y);
  t.z = (unsigned int)(linear / blockDim.x / blockDim.y);
  return t;
}

static void fiber_main() {
  const size_t me = current;
  threadIdx = fibers[me].thread;
  entry(arguments);
  fibers[me].state = 2;
  switch_to(fibers[me].context, scheduler);
}

}  // namespace ember_emu

__attribute__((noinline)) static void __syncthreads() {
  using namespace ember_emu;
  if (fibers.empty()) {   // a kernel run without fibers has no barrier to wait at: compiled wrongly
    error = "__syncthreads reached in a kernel launched without barrier support";
    return;
  }
  const size_t me = current;
  fibers[me].state = 1;
  fibers[me].barrier_site = __builtin_return_address(0);
  switch_to(fibers[me].context, scheduler);
  threadIdx = fibers[me].thread;
}

namespace ember_emu {

// Run one block: every thread in turn to its next barrier (or its end), until all have finished.
static void run_block(size_t threads) {
  fibers.assign(threads, Fiber());
  if (stacks.size() < threads * kStack) stacks.resize(threads * kStack);
  for (size_t i = 0; i < threads; ++i) {
    start_on(fibers[i].context, stacks.data() + i * kStack, kStack, fiber_main);
    fibers[i].thread = thread_of(i);
    fibers[i].state = 0;
  }
  for (;;) {
    for (size_t i = 0; i < threads; ++i) {
      if (fibers[i].state != 0) continue;
      current = i;
      switch_to(scheduler, fibers[i].context);
    }
    void* site = nullptr;
    size_t waiting = 0;
    for (size_t i = 0; i < threads; ++i) {
      if (fibers[i].state != 1) continue;
      if (waiting++ && fibers[i].barrier_site != site) {
        error = "threads of one block wait at different __syncthreads calls (divergent barrier)";
        fibers.clear();
        return;
      }
      site = fibers[i].barrier_site;
      fibers[i].state = 0;
    }
    if (!waiting) break;
  }
  fibers.clear();
}

}  // namespace ember_emu

// What the emulator's Python side calls: one launch of `kernel` (a trampoline that unpacks the
// argument pointers). Returns an error message, or null.
extern "C" __attribute__((visibility("default"))) const char* ember_emu_launch(
    ember_emu::Entry kernel, void** args, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
    unsigned int by, unsigned int bz, int uses_barriers) {
  using namespace ember_emu;
  entry = kernel;
  arguments = args;
  error = nullptr;
  gridDim = dim3(gx, gy, gz);
  blockDim = dim3(bx, by, bz);
  const size_t threads = (size_t)bx * by * bz;
  for (unsigned int z = 0; z < gz && !error; ++z)
    for (unsigned int y = 0; y < gy && !error; ++y)
      for (unsigned int x = 0; x < gx && !error; ++x) {
        blockIdx.x = x; blockIdx.y = y; blockIdx.z = z;
        if (uses_barriers) {
          run_block(threads);
        } else {
          for (size_t i = 0; i < threads; ++i) {
            threadIdx = thread_of(i);
            kernel(args);
          }
        }
      }
  return error;
}

namespace ember_emu {
template <typename... A, size_t... I>
void invoke_unpacked(void (*kernel)(A...), void** args, std::index_sequence<I...>) {
  kernel(*static_cast<A*>(args[I])...);
}
template <typename... A> void invoke(void (*kernel)(A...), void** args) {
  invoke_unpacked(kernel, args, std::index_sequence_for<A...>{});
}
}  // namespace ember_emu
