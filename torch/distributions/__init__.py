"""torch.distributions: so far its constraints (torch.distributions.constraints), which libraries
import to validate parameters; Ember has none of the distribution classes yet, and importing one
fails with ImportError naming it."""
from torch.distributions import constraints

__all__ = ["constraints"]
