""":mod:`torch.optim` is a package implementing various optimization algorithms: PyTorch's
Optimizer base, SGD, Adam, AdamW, NAdam, RAdam, Adamax, Adadelta, Adagrad, RMSprop, Rprop, ASGD,
LBFGS, SparseAdam (which, as PyTorch's, refuses the dense gradients Ember's tensors have), the
learning-rate schedulers and weight averaging (swa_utils)."""
from torch.optim import lr_scheduler, swa_utils
from torch.optim.adadelta import Adadelta
from torch.optim.adagrad import Adagrad
from torch.optim.adam import Adam
from torch.optim.adamax import Adamax
from torch.optim.adamw import AdamW
from torch.optim.asgd import ASGD
from torch.optim.lbfgs import LBFGS
from torch.optim.nadam import NAdam
from torch.optim.radam import RAdam
from torch.optim.optimizer import Optimizer
from torch.optim.rmsprop import RMSprop
from torch.optim.rprop import Rprop
from torch.optim.sgd import SGD
from torch.optim.sparse_adam import SparseAdam

__all__ = ["ASGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "Rprop", "SGD", "SparseAdam", "lr_scheduler", "swa_utils"]
