"""torch.distributions: parametrised probability distributions with PyTorch's API (sampling,
reparameterised sampling, log_prob, cdf, entropy, moments, argument validation), the transforms
and TransformedDistribution built on them, biject_to/transform_to, and kl_divergence.

Normal, Uniform, Exponential, Laplace, Cauchy, Geometric, Bernoulli, Categorical, OneHotCategorical,
Multinomial, MultivariateNormal and the transformed ones built on them (LogNormal, HalfNormal,
Gumbel, Pareto, Weibull) sample with PyTorch's ops in PyTorch's order, so they give PyTorch's
samples for the same torch.manual_seed. Gamma, Chi2, StudentT, Beta, Dirichlet, Poisson and
Binomial sample with Ember's own vectorised samplers (torch.distributions._samplers):
statistically exact, not PyTorch's draws. PyTorch's other distributions (ContinuousBernoulli,
FisherSnedecor, GeneralizedPareto, HalfCauchy, InverseGamma, Kumaraswamy, LKJCholesky,
LogisticNormal, LowRankMultivariateNormal, MixtureSameFamily, NegativeBinomial, the relaxed ones,
VonMises, Wishart) are not here yet."""
from torch.distributions import _kl_cross as _kl_cross  # importing it registers the cross-family KL pairs
from torch.distributions import constraints as constraints
from torch.distributions.bernoulli import Bernoulli
from torch.distributions.beta import Beta
from torch.distributions.binomial import Binomial
from torch.distributions.categorical import Categorical
from torch.distributions.cauchy import Cauchy
from torch.distributions.chi2 import Chi2
from torch.distributions.constraint_registry import biject_to, transform_to
from torch.distributions.dirichlet import Dirichlet
from torch.distributions.distribution import Distribution
from torch.distributions.exp_family import ExponentialFamily
from torch.distributions.exponential import Exponential
from torch.distributions.gamma import Gamma
from torch.distributions.geometric import Geometric
from torch.distributions.gumbel import Gumbel
from torch.distributions.half_normal import HalfNormal
from torch.distributions.independent import Independent
from torch.distributions.kl import kl_divergence, register_kl
from torch.distributions.laplace import Laplace
from torch.distributions.log_normal import LogNormal
from torch.distributions.multinomial import Multinomial
from torch.distributions.multivariate_normal import MultivariateNormal
from torch.distributions.normal import Normal
from torch.distributions.one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from torch.distributions.pareto import Pareto
from torch.distributions.poisson import Poisson
from torch.distributions.studentT import StudentT
from torch.distributions.transformed_distribution import TransformedDistribution
from torch.distributions.transforms import (AbsTransform, AffineTransform, CatTransform, ComposeTransform,
                                            CorrCholeskyTransform, CumulativeDistributionTransform, ExpTransform,
                                            IndependentTransform, LowerCholeskyTransform, PositiveDefiniteTransform,
                                            PowerTransform, ReshapeTransform, SigmoidTransform, SoftmaxTransform,
                                            SoftplusTransform, StackTransform, StickBreakingTransform, TanhTransform,
                                            Transform, identity_transform)
from torch.distributions.uniform import Uniform
from torch.distributions.weibull import Weibull

# PyTorch's order, less the distributions Ember does not have yet
__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet", "Distribution",
           "Exponential", "ExponentialFamily", "Gamma", "Geometric", "Gumbel", "HalfNormal", "Independent", "Laplace",
           "LogNormal", "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Pareto", "StudentT", "Poisson", "Uniform", "Weibull",
           "TransformedDistribution", "biject_to", "kl_divergence", "register_kl", "transform_to", "AbsTransform",
           "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
           "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
           "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
           "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "Transform",
           "identity_transform"]
