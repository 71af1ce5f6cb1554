"""torch.nn.parallel: DataParallel as PyTorch runs it with one device or none (Ember drives CUDA
device 0 only, so more device ids are refused), and DistributedDataParallel, which needs a process
group: without torch.distributed's backend it raises PyTorch's error for a missing default group."""
from torch.nn.parallel.data_parallel import DataParallel, data_parallel
from torch.nn.parallel.distributed import DistributedDataParallel
from torch.nn.parallel.scatter_gather import gather, parallel_apply, replicate, scatter

__all__ = ["replicate", "scatter", "parallel_apply", "gather", "data_parallel", "DataParallel",
           "DistributedDataParallel"]
