""":mod:`torch.optim` is a package implementing various optimization algorithms: PyTorch's
Optimizer base, SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS and the learning-rate schedulers."""
from torch.optim import lr_scheduler
from torch.optim.adagrad import Adagrad
from torch.optim.adam import Adam
from torch.optim.adamw import AdamW
from torch.optim.lbfgs import LBFGS
from torch.optim.optimizer import Optimizer
from torch.optim.rmsprop import RMSprop
from torch.optim.sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "LBFGS", "Optimizer", "RMSprop", "SGD", "lr_scheduler"]
