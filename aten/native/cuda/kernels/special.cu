// digamma, polygamma, gcd and lcm on the device (handwritten; aten/native/cuda/special.py), the
// CUDA twins of aten/native/cpu/special.pyx (same method, same constants; the device's libm may
// differ from glibc's in the last bits): digamma in double by reflection below 0, the recurrence
// up to 10, then the asymptotic series; trigamma by reflection below 1/2, six recurrence steps and
// its series; higher orders as (-1)^(n+1) n! zeta(n + 1, x) with the Hurwitz zeta by
// Euler-Maclaurin (Cephes, as PyTorch); gcd and lcm by Euclid's algorithm on |a|, |b| in int64,
// lcm wrapping as PyTorch's integer arithmetic does.

#define EMBER_PI 3.14159265358979323846

// x > 0 (finite or not): the recurrence, then the series
__device__ double ember_digamma_positive(double x) {
  double result = 0.0;
  while (x < 10) {
    result -= 1.0 / x;
    x += 1;
  }
  if (x == 10) return result + 2.25175258906672110764;
  const double z = 1.0 / (x * x);
  const double poly = z * (8.33333333333333333333e-2 + z * (-8.33333333333333333333e-3 + z * (3.96825396825396825397e-3
                      + z * (-4.16666666666666666667e-3 + z * (7.57575757575757575758e-3 + z * (-2.10927960927960927961e-2
                      + z * 8.33333333333333333333e-2))))));
  return result + log(x) - 0.5 / x - poly;
}

__device__ double ember_digamma(double x) {
  if (x == 0) return copysign(INFINITY, -x);
  if (x < 0) {
    if (x == floor(x)) return NAN;
    // psi(1 - x) - psi(x) = pi / tan(pi x), with x's fractional part r (pi r stays exact enough
    // near the poles, as PyTorch's modf)
    const double r = x - trunc(x);
    return ember_digamma_positive(1.0 - x) - EMBER_PI / tan(EMBER_PI * r);
  }
  return ember_digamma_positive(x);
}

__device__ __forceinline__ float ember_sin(float x) { return sinf(x); }
__device__ __forceinline__ double ember_sin(double x) { return sin(x); }

template <typename T> __device__ T ember_trigamma(T x) {   // float: PyTorch's float kernel's arithmetic
  T sign = 1, result = 0;
  if (x < (T)0.5) {
    sign = -1;
    const T s = ember_sin((T)EMBER_PI * x);
    result -= ((T)EMBER_PI * (T)EMBER_PI) / (s * s);
    x = (T)1 - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += (T)1 / (x * x);
    x += (T)1;
  }
  const T ixx = (T)1 / (x * x);
  result += ((T)1 + (T)1 / ((T)2 * x) + ixx * ((T)1 / (T)6 - ixx * ((T)1 / (T)30 - ixx * ((T)1 / (T)42)))) / x;
  return sign * result;
}

__device__ double ember_zeta(double x, double q) {
  // (2k)! / B_2k for k = 1..12 (B: Bernoulli numbers): the Euler-Maclaurin correction terms
  const double A[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1892437580.3183792, 74724249600.0,
                        -2950130727918.164, 116467828143500.67, -4597978722407473.0, 1.8152105401943546e+17,
                        -7.166165256175667e+18};
  const double machep = 1.11022302462515654042e-16;
  if (x == 1.0) return INFINITY;
  if (x < 1.0) return NAN;
  if (q <= 0.0) {
    if (q == floor(q)) return INFINITY;
    if (x != floor(x)) return NAN;
  }
  double s = pow(q, -x), a = q, b = 0.0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    i += 1;
    a += 1.0;
    b = pow(a, -x);
    s += b;
    if (-machep * s < b && b < machep * s) return s;
  }
  const double w = a;
  s += b * w / (x - 1.0);
  s -= 0.5 * b;
  a = 1.0;
  double k = 0.0;
  for (i = 0; i < 12; ++i) {
    a *= x + k;
    b /= w;
    const double t = a * b / A[i];
    s = s + t;
    if (fabs(t / s) < machep) return s;
    k += 1.0;
    a *= x + k;
    b /= w;
    k += 1.0;
  }
  return s;
}

__device__ double ember_polygamma(long long n, double x) {
  if (n == 0) return ember_digamma(x);
  if (n == 1) return ember_trigamma(x);
  return (n % 2 ? 1.0 : -1.0) * exp(lgamma(n + 1.0)) * ember_zeta(n + 1.0, x);
}

// float32: n! in float and zeta in double rounded to float before the product, as PyTorch
__device__ float ember_polygamma_float(long long n, float x) {
  if (n == 0) return (float)ember_digamma(x);
  if (n == 1) return ember_trigamma(x);
  const float fact = expf(lgammaf((float)n + 1.0f));
  return (n % 2 ? 1.0f : -1.0f) * fact * (float)ember_zeta(n + 1.0, x);
}

__device__ __forceinline__ long long ember_gcd(long long a, long long b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    const long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

#define EMBER_GRID_LOOP(n) \
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); i += (long long)blockDim.x * gridDim.x)

extern "C" __global__ void digamma_float32(long long n, const float* x, float* out) {
  EMBER_GRID_LOOP(n) out[i] = (float)ember_digamma((double)x[i]);
}

extern "C" __global__ void digamma_float64(long long n, const double* x, double* out) {
  EMBER_GRID_LOOP(n) out[i] = ember_digamma(x[i]);
}

extern "C" __global__ void polygamma_float32(long long n, const float* x, float* out, long long order) {
  EMBER_GRID_LOOP(n) out[i] = ember_polygamma_float(order, x[i]);
}

extern "C" __global__ void polygamma_float64(long long n, const double* x, double* out, long long order) {
  EMBER_GRID_LOOP(n) out[i] = ember_polygamma(order, x[i]);
}

extern "C" __global__ void gcd_int64(long long n, const long long* a, const long long* b, long long* out) {
  EMBER_GRID_LOOP(n) out[i] = ember_gcd(a[i], b[i]);
}

extern "C" __global__ void lcm_int64(long long n, const long long* a, const long long* b, long long* out) {
  EMBER_GRID_LOOP(n) {
    const long long g = ember_gcd(a[i], b[i]);
    long long r = g == 0 ? 0 : (long long)((unsigned long long)(a[i] / g) * (unsigned long long)b[i]);
    out[i] = r < 0 ? -r : r;
  }
}
