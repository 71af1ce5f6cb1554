"""torch.nn.utils: gradient clipping, parameter/vector conversion and parametrizations."""
from torch.nn.utils.clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                                      get_total_norm)
from torch.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from torch.nn.utils import parametrizations, parametrize
from torch.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from torch.nn.utils.weight_norm import remove_weight_norm, weight_norm
from torch.nn.utils import rnn

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "parametrizations", "parametrize", "remove_spectral_norm", "remove_weight_norm",
           "rnn", "spectral_norm", "vector_to_parameters", "weight_norm"]
