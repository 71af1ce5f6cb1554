"""The C++ type names PyTorch's error messages give dtypes (c10's TypeMeta names): "to - 1 is out of
bounds for unsigned char", "input tensor dtype long int and output tensor dtype double"."""
from __future__ import annotations

CPP_TYPE_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
                  "int32": "int", "int64": "long int", "float16": "c10::Half", "float32": "float",
                  "float64": "double"}
