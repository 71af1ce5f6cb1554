"""Every dtype's facts, in one table.

c10/scalar_type.pyx builds torch's dtype objects, its size, kind and promotion lookups and its
C++ names from it; torchgen reads the same file as data (`ast.literal_eval` of the two
assignments below, so torchgen imports nothing of c10) to generate each dtype's kernels. Only
literals may appear here. Adding a dtype means a row here (and its ScalarType in the enum of
c10/scalar_type.pxd, which a test holds to this table), its row and column in PROMOTION, and the
schema's dtype classes.

Columns:
  name        torch.<name>, and the name torch.dtype prints
  scalar_type c10::ScalarType's number (c10/core/ScalarType.h), what checkpoints and messages use
  aliases     further torch.<alias> names
  type_name   c10's toString(): the word PyTorch's messages print ("Float", "Long")
  cpp_name    c10's TypeMeta name, what PyTorch's C++ messages print ("float", "long int")
  itemsize    bytes per element
  kind        "b" bool, "i" signed integral, "u" unsigned integral, "f" floating, "c" complex
  numpy       the NumPy dtype a tensor of it hands off as (None: none, .numpy() raises)
  ctype       the C/Cython type of one element in generated CPU loops
  cuda_type   the CUDA C type of one element in generated CUDA kernels (None: no CUDA tensors of it yet)
  opmath      the dtype loops over it compute in (PyTorch's opmath_type), when not itself
  format      a floating dtype's bit layout, "e<exponent bits>m<mantissa bits>" (torch.finfo's source)
  load, store C functions converting one element to and from its opmath type, for ctypes C cannot
              convert itself (None: a C cast does it)
  cuda_load, cuda_store  the same for cuda_type in the CUDA kernels
  arithmetic  whether ops compute in it (False: a storage type, as float8: its loops are casts only)
  legacy_storage  whether PyTorch's checkpoints name it by a typed storage class (<type_name>Storage);
              the others are saved as bytes and rebuilt with their dtype (_rebuild_tensor_v3)
  promotion_error  the group PyTorch names when it refuses to promote the dtype with another one
  barebones   PyTorch's AT_BAREBONES_UNSIGNED_TYPES: only the ops that name them compute in them
"""

DTYPES = (
    {"name": "uint8", "scalar_type": 0, "aliases": (), "type_name": "Byte", "cpp_name": "unsigned char",
     "itemsize": 1, "kind": "u", "numpy": "uint8", "ctype": "uint8_t", "cuda_type": "unsigned char", "opmath": None,
     "format": None, "load": None, "store": None,
     "cuda_load": None, "cuda_store": None,
     "arithmetic": True, "legacy_storage": True, "promotion_error": None, "barebones": False},
    {"name": "int8", "scalar_type": 1, "aliases": (), "type_name": "Char", "cpp_name": "signed char",
     "itemsize": 1, "kind": "i", "numpy": "int8", "ctype": "int8_t", "cuda_type": "signed char", "opmath": None,
     "format": None, "load": None, "store": None,
     "cuda_load": None, "cuda_store": None,
     "arithmetic": True, "legacy_storage": True, "promotion_error": None, "barebones": False},
    {"name": "int16", "scalar_type": 2, "aliases": ("short",), "type_name": "Short", "cpp_name": "short int",
     "itemsize": 2, "kind": "i", "numpy": "int16", "ctype": "int16_t", "cuda_type": "short", "opmath": None,
     "format": None, "load": None, "store": None,
     "cuda_load": None, "cuda_store": None,
     "arithmetic": True, "legacy_storage": True, "promotion_error": None, "barebones": False},
    {"name": "int32", "scalar_type": 3, "aliases": ("int",), "type_name": "Int", "cpp_name": "int",
     "itemsize": 4, "kind": "i", "numpy": "int32", "ctype": "int32_t", "cuda_type": "int", "opmath": None,
     "format": None, "load": None, "store": None,
     "cuda_load": None, "cuda_store": None,
     "arithmetic": True, "legacy_storage": True, "promotion_error": None, "barebones": False},
    {"name": "int64", "scalar_type": 4, "aliases": ("long",), "type_name": "Long", "cpp_name": "long int",
     "itemsize": 8, "kind": "i", "numpy": "int64", "ctype": "int64_t", "cuda_type": "long long", "opmath": None,
     "format": None, "load": None, "store": None,
     "cuda_load": None, "cuda_store": None,
     "arithmetic": True, "legacy_storage": True, "promotion_error": None, "barebones": False},
    # `half` is C's _Float16 (c10/half.pxd); CUDA's __half comes from cuda_fp16.h. Loops over it load
    # float32, compute, and round once on the store, as PyTorch's do.
    {"name": "float16", "scalar_type": 5, "aliases": ("half",), "type_name": "Half", "cpp_name": "c10::Half",
     "itemsize": 2, "kind": "f", "numpy": "float16", "ctype": "half", "cuda_type": "__half", "opmath": "float32",
     "format": "e5m10", "load": None, "store": None,
     "cuda_load": "__half2float", "cuda_store": "ember_float_to_half",
     "arithmetic": True, "legacy_storage": True, "promotion_error": None, "barebones": False},
    {"name": "float32", "scalar_type": 6, "aliases": ("float",), "type_name": "Float", "cpp_name": "float",
     "itemsize": 4, "kind": "f", "numpy": "float32", "ctype": "float", "cuda_type": "float", "opmath": None,
     "format": "e8m23", "load": None, "store": None,
     "cuda_load": None, "cuda_store": None,
     "arithmetic": True, "legacy_storage": True, "promotion_error": None, "barebones": False},
    {"name": "float64", "scalar_type": 7, "aliases": ("double",), "type_name": "Double", "cpp_name": "double",
     "itemsize": 8, "kind": "f", "numpy": "float64", "ctype": "double", "cuda_type": "double", "opmath": None,
     "format": "e11m52", "load": None, "store": None,
     "cuda_load": None, "cuda_store": None,
     "arithmetic": True, "legacy_storage": True, "promotion_error": None, "barebones": False},
    # `bfloat16` is a struct holding the bits (c10/bfloat16.h): C has no arithmetic on it, so loops
    # load and store through bf16_to_float / float_to_bf16 (round to nearest even, NaN as 0xFFFF, as
    # PyTorch's CPU conversion gives). NumPy has no bfloat16: .numpy() refuses it, as PyTorch does.
    {"name": "bfloat16", "scalar_type": 15, "aliases": (), "type_name": "BFloat16", "cpp_name": "c10::BFloat16",
     "itemsize": 2, "kind": "f", "numpy": None, "ctype": "bfloat16", "cuda_type": "ember_bf16", "opmath": "float32",
     "format": "e8m7", "load": "bf16_to_float", "store": "float_to_bf16",
     "cuda_load": "ember_bf16_to_float", "cuda_store": "ember_float_to_bf16",
     "arithmetic": True, "legacy_storage": True, "promotion_error": None, "barebones": False},
    # The float8 formats are storage types, as in PyTorch: created, converted (c10/float8.h, bit for bit
    # with PyTorch's conversions), moved, saved; no arithmetic and no promotion with other dtypes.
    {"name": "float8_e5m2", "scalar_type": 23, "aliases": (), "type_name": "Float8_e5m2",
     "cpp_name": "c10::Float8_e5m2", "itemsize": 1, "kind": "f", "numpy": None, "ctype": "float8_e5m2",
     "cuda_type": "ember_e5m2", "opmath": None, "format": "e5m2", "load": "e5m2_to_float",
     "store": "float_to_e5m2", "cuda_load": "ember_e5m2_to_float", "cuda_store": "ember_float_to_e5m2",
     "arithmetic": False, "legacy_storage": False, "promotion_error": "Float8 Types", "barebones": False},
    {"name": "float8_e4m3fn", "scalar_type": 24, "aliases": (), "type_name": "Float8_e4m3fn",
     "cpp_name": "c10::Float8_e4m3fn", "itemsize": 1, "kind": "f", "numpy": None, "ctype": "float8_e4m3fn",
     "cuda_type": "ember_e4m3fn", "opmath": None, "format": "e4m3fn", "load": "e4m3fn_to_float",
     "store": "float_to_e4m3fn", "cuda_load": "ember_e4m3fn_to_float", "cuda_store": "ember_float_to_e4m3fn",
     "arithmetic": False, "legacy_storage": False, "promotion_error": "Float8 Types", "barebones": False},
    {"name": "float8_e5m2fnuz", "scalar_type": 25, "aliases": (), "type_name": "Float8_e5m2fnuz",
     "cpp_name": "c10::Float8_e5m2fnuz", "itemsize": 1, "kind": "f", "numpy": None, "ctype": "float8_e5m2fnuz",
     "cuda_type": "ember_e5m2fnuz", "opmath": None, "format": "e5m2fnuz", "load": "e5m2fnuz_to_float",
     "store": "float_to_e5m2fnuz", "cuda_load": "ember_e5m2fnuz_to_float", "cuda_store": "ember_float_to_e5m2fnuz",
     "arithmetic": False, "legacy_storage": False, "promotion_error": "Float8 Types", "barebones": False},
    {"name": "float8_e4m3fnuz", "scalar_type": 26, "aliases": (), "type_name": "Float8_e4m3fnuz",
     "cpp_name": "c10::Float8_e4m3fnuz", "itemsize": 1, "kind": "f", "numpy": None, "ctype": "float8_e4m3fnuz",
     "cuda_type": "ember_e4m3fnuz", "opmath": None, "format": "e4m3fnuz", "load": "e4m3fnuz_to_float",
     "store": "float_to_e4m3fnuz", "cuda_load": "ember_e4m3fnuz_to_float", "cuda_store": "ember_float_to_e4m3fnuz",
     "arithmetic": False, "legacy_storage": False, "promotion_error": "Float8 Types", "barebones": False},
    # PyTorch's "barebones" unsigned types (2.3+): created, converted, compared and moved, and computed
    # in only by the ops that opt in (ember_pointwise's barebones_unsigned); promoted with floating
    # dtypes only.
    {"name": "uint16", "scalar_type": 27, "aliases": (), "type_name": "UInt16", "cpp_name": "unsigned short",
     "itemsize": 2, "kind": "u", "numpy": "uint16", "ctype": "uint16_t", "cuda_type": "unsigned short", "opmath": None,
     "format": None, "load": None, "store": None, "cuda_load": None, "cuda_store": None, "arithmetic": True,
     "legacy_storage": False, "promotion_error": "uint16, uint32, uint64 types", "barebones": True},
    {"name": "uint32", "scalar_type": 28, "aliases": (), "type_name": "UInt32", "cpp_name": "unsigned int",
     "itemsize": 4, "kind": "u", "numpy": "uint32", "ctype": "uint32_t", "cuda_type": "unsigned int", "opmath": None,
     "format": None, "load": None, "store": None, "cuda_load": None, "cuda_store": None, "arithmetic": True,
     "legacy_storage": False, "promotion_error": "uint16, uint32, uint64 types", "barebones": True},
    {"name": "uint64", "scalar_type": 29, "aliases": (), "type_name": "UInt64", "cpp_name": "unsigned long long",
     "itemsize": 8, "kind": "u", "numpy": "uint64", "ctype": "uint64_t", "cuda_type": "unsigned long long",
     "opmath": None, "format": None, "load": None, "store": None, "cuda_load": None, "cuda_store": None, "arithmetic": True,
     "legacy_storage": False, "promotion_error": "uint16, uint32, uint64 types", "barebones": True},
    # The complex dtypes hold (real, imaginary) pairs of float32 / float64 (C99 `float complex` /
    # `double complex`, c10/complex.pxd; on CUDA ember_complex<T>, aten/native/cuda/kernels/complex.cuh).
    # Storage types to every kernel but those that compute in them: the ember_pointwise loops with a
    # `complex` formula and the kernels whose entries say `complex: kernel`.
    {"name": "complex64", "scalar_type": 9, "aliases": ("cfloat",), "type_name": "ComplexFloat",
     "cpp_name": "c10::complex<float>", "itemsize": 8, "kind": "c", "numpy": "complex64", "ctype": "complex64_t",
     "cuda_type": "ember_complex<float>", "opmath": None, "format": None, "load": None, "store": None, "cuda_load": None,
     "cuda_store": None, "arithmetic": False, "legacy_storage": True, "promotion_error": None, "barebones": False},
    {"name": "complex128", "scalar_type": 10, "aliases": ("cdouble",), "type_name": "ComplexDouble",
     "cpp_name": "c10::complex<double>", "itemsize": 16, "kind": "c", "numpy": "complex128",
     "ctype": "complex128_t", "cuda_type": "ember_complex<double>", "opmath": None, "format": None, "load": None, "store": None,
     "cuda_load": None, "cuda_store": None, "arithmetic": False, "legacy_storage": True, "promotion_error": None,
     "barebones": False},
    # bool loops hold uint8_t and normalise results to 0/1.
    {"name": "bool", "scalar_type": 11, "aliases": (), "type_name": "Bool", "cpp_name": "bool",
     "itemsize": 1, "kind": "b", "numpy": "bool", "ctype": "uint8_t", "cuda_type": "unsigned char", "opmath": None,
     "format": None, "load": None, "store": None,
     "cuda_load": None, "cuda_store": None,
     "arithmetic": True, "legacy_storage": True, "promotion_error": None, "barebones": False},
)

# c10/core/ScalarType.cpp's promotion lattice over the dtypes above: PROMOTION[a][b] is the type two
# operands of dtypes a and b compute in (before wrapped numbers and categories are considered); None
# where PyTorch refuses (its message names the promotion_error group of either dtype).
PROMOTION = {
    "uint8": {"uint8": "uint8", "int8": "int16", "int16": "int16", "int32": "int32", "int64": "int64",
              "float16": "float16", "float32": "float32", "float64": "float64", "bfloat16": "bfloat16",
              "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None,
              "uint16": None, "uint32": None, "uint64": None, "bool": "uint8", "complex64": "complex64",
              "complex128": "complex128"},
    "int8": {"uint8": "int16", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
             "float16": "float16", "float32": "float32", "float64": "float64", "bfloat16": "bfloat16",
             "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None,
             "uint16": None, "uint32": None, "uint64": None, "bool": "int8", "complex64": "complex64",
             "complex128": "complex128"},
    "int16": {"uint8": "int16", "int8": "int16", "int16": "int16", "int32": "int32", "int64": "int64",
              "float16": "float16", "float32": "float32", "float64": "float64", "bfloat16": "bfloat16",
              "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None,
              "uint16": None, "uint32": None, "uint64": None, "bool": "int16", "complex64": "complex64",
              "complex128": "complex128"},
    "int32": {"uint8": "int32", "int8": "int32", "int16": "int32", "int32": "int32", "int64": "int64",
              "float16": "float16", "float32": "float32", "float64": "float64", "bfloat16": "bfloat16",
              "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None,
              "uint16": None, "uint32": None, "uint64": None, "bool": "int32", "complex64": "complex64",
              "complex128": "complex128"},
    "int64": {"uint8": "int64", "int8": "int64", "int16": "int64", "int32": "int64", "int64": "int64",
              "float16": "float16", "float32": "float32", "float64": "float64", "bfloat16": "bfloat16",
              "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None,
              "uint16": None, "uint32": None, "uint64": None, "bool": "int64", "complex64": "complex64",
              "complex128": "complex128"},
    "float16": {"uint8": "float16", "int8": "float16", "int16": "float16", "int32": "float16", "int64": "float16",
                "float16": "float16", "float32": "float32", "float64": "float64", "bfloat16": "float32",
                "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None,
                "uint16": "float16", "uint32": "float16", "uint64": "float16", "bool": "float16",
                "complex64": "complex64", "complex128": "complex128"},
    "float32": {"uint8": "float32", "int8": "float32", "int16": "float32", "int32": "float32", "int64": "float32",
                "float16": "float32", "float32": "float32", "float64": "float64", "bfloat16": "float32",
                "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None,
                "uint16": "float32", "uint32": "float32", "uint64": "float32", "bool": "float32",
                "complex64": "complex64", "complex128": "complex128"},
    "float64": {"uint8": "float64", "int8": "float64", "int16": "float64", "int32": "float64", "int64": "float64",
                "float16": "float64", "float32": "float64", "float64": "float64", "bfloat16": "float64",
                "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None,
                "uint16": "float64", "uint32": "float64", "uint64": "float64", "bool": "float64",
                "complex64": "complex128", "complex128": "complex128"},
    "bfloat16": {"uint8": "bfloat16", "int8": "bfloat16", "int16": "bfloat16", "int32": "bfloat16",
                 "int64": "bfloat16", "float16": "float32", "float32": "float32", "float64": "float64",
                 "bfloat16": "bfloat16", "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None,
                 "float8_e4m3fnuz": None, "uint16": "bfloat16", "uint32": "bfloat16", "uint64": "bfloat16",
                 "bool": "bfloat16", "complex64": "complex64", "complex128": "complex128"},
    "float8_e5m2": {"uint8": None, "int8": None, "int16": None, "int32": None, "int64": None, "float16": None,
                    "float32": None, "float64": None, "bfloat16": None, "float8_e5m2": "float8_e5m2",
                    "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None, "uint16": None,
                    "uint32": None, "uint64": None, "bool": None, "complex64": None, "complex128": None},
    "float8_e4m3fn": {"uint8": None, "int8": None, "int16": None, "int32": None, "int64": None, "float16": None,
                      "float32": None, "float64": None, "bfloat16": None, "float8_e5m2": None,
                      "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2fnuz": None, "float8_e4m3fnuz": None,
                      "uint16": None, "uint32": None, "uint64": None, "bool": None, "complex64": None,
                      "complex128": None},
    "float8_e5m2fnuz": {"uint8": None, "int8": None, "int16": None, "int32": None, "int64": None, "float16": None,
                        "float32": None, "float64": None, "bfloat16": None, "float8_e5m2": None,
                        "float8_e4m3fn": None, "float8_e5m2fnuz": "float8_e5m2fnuz", "float8_e4m3fnuz": None,
                        "uint16": None, "uint32": None, "uint64": None, "bool": None, "complex64": None,
                        "complex128": None},
    "float8_e4m3fnuz": {"uint8": None, "int8": None, "int16": None, "int32": None, "int64": None, "float16": None,
                        "float32": None, "float64": None, "bfloat16": None, "float8_e5m2": None,
                        "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": "float8_e4m3fnuz",
                        "uint16": None, "uint32": None, "uint64": None, "bool": None, "complex64": None,
                        "complex128": None},
    "uint16": {"uint8": None, "int8": None, "int16": None, "int32": None, "int64": None, "float16": "float16",
               "float32": "float32", "float64": "float64", "bfloat16": "bfloat16", "float8_e5m2": None,
               "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None, "uint16": "uint16",
               "uint32": None, "uint64": None, "bool": None, "complex64": None, "complex128": None},
    "uint32": {"uint8": None, "int8": None, "int16": None, "int32": None, "int64": None, "float16": "float16",
               "float32": "float32", "float64": "float64", "bfloat16": "bfloat16", "float8_e5m2": None,
               "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None, "uint16": None,
               "uint32": "uint32", "uint64": None, "bool": None, "complex64": None, "complex128": None},
    "uint64": {"uint8": None, "int8": None, "int16": None, "int32": None, "int64": None, "float16": "float16",
               "float32": "float32", "float64": "float64", "bfloat16": "bfloat16", "float8_e5m2": None,
               "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None, "uint16": None,
               "uint32": None, "uint64": "uint64", "bool": None, "complex64": None, "complex128": None},
    "bool": {"uint8": "uint8", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
             "float16": "float16", "float32": "float32", "float64": "float64", "bfloat16": "bfloat16",
             "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None, "float8_e4m3fnuz": None,
             "uint16": None, "uint32": None, "uint64": None, "bool": "bool", "complex64": "complex64",
             "complex128": "complex128"},
    "complex64": {"uint8": "complex64", "int8": "complex64", "int16": "complex64", "int32": "complex64",
                  "int64": "complex64", "float16": "complex64", "float32": "complex64", "float64": "complex128",
                  "bfloat16": "complex64", "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None,
                  "float8_e4m3fnuz": None, "uint16": None, "uint32": None, "uint64": None, "bool": "complex64",
                  "complex64": "complex64", "complex128": "complex128"},
    "complex128": {"uint8": "complex128", "int8": "complex128", "int16": "complex128", "int32": "complex128",
                   "int64": "complex128", "float16": "complex128", "float32": "complex128", "float64": "complex128",
                   "bfloat16": "complex128", "float8_e5m2": None, "float8_e4m3fn": None, "float8_e5m2fnuz": None,
                   "float8_e4m3fnuz": None, "uint16": None, "uint32": None, "uint64": None, "bool": "complex128",
                   "complex64": "complex128", "complex128": "complex128"},
}
