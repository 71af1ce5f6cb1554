"""Record PyTorch's torch.distributions results for the distribution tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_distributions_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`distributions.json`: for each case of CASES, what `run_case` returns under PyTorch: samples drawn
after torch.manual_seed from the distributions whose samplers are compositions of ops Ember
reproduces bit for bit, log_prob/cdf/entropy/moments, reprs, and errors (type and message). The
tests run the same `run_case` on Ember and compare.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "distributions"
REFERENCE_PACKAGE = "torch"

SAMPLE_CASES = ("normal_sample", "normal_rsample", "uniform", "exponential", "laplace", "cauchy", "geometric",
                "bernoulli", "bernoulli_logits", "categorical", "categorical_batched", "one_hot_categorical",
                "log_normal", "multivariate_normal", "independent_normal", "transformed_sigmoid_affine",
                "expanded_normal", "sample_n", "gumbel", "pareto", "weibull", "weibull_expanded", "half_normal",
                "multinomial")
VALUE_CASES = ("values_normal", "values_laplace", "values_exponential", "values_uniform", "values_bernoulli",
               "values_categorical", "values_one_hot", "values_beta", "values_gamma", "values_dirichlet",
               "values_poisson", "values_binomial", "values_geometric", "values_cauchy", "values_log_normal",
               "values_mvn", "values_mvn_precision", "values_transformed", "values_student_t", "values_chi2",
               "values_half_normal", "values_gumbel", "values_pareto", "values_weibull", "values_multinomial",
               "kl_pairs")
ERROR_CASES = ("error_scale", "error_probs_logits", "error_sample_support", "error_sample_shape", "error_kl_pair",
               "error_categorical_dim", "error_mvn_two_params", "error_uniform_bounds", "error_independent_ndims",
               "error_dirichlet_concentration")
CASES = SAMPLE_CASES + VALUE_CASES + ERROR_CASES


def _t(torch: Any, data: Any) -> Any:
    return torch.tensor(data, dtype=torch.float64)


def _sample(torch: Any, name: str) -> Any:
    D = importlib.import_module(torch.__name__ + ".distributions")
    torch.manual_seed(7)
    if name == "normal_sample":
        return D.Normal(torch.tensor([0.0, 1.0, -2.0]), torch.tensor([1.0, 0.5, 3.0])).sample((4,))
    if name == "normal_rsample":
        return D.Normal(_t(torch, [0.0, 1.0]), _t(torch, [2.0, 0.1])).rsample((3, 2))
    if name == "uniform":
        return D.Uniform(_t(torch, [0.0, -1.0]), _t(torch, [1.0, 5.0])).rsample((5,))
    if name == "exponential":
        return D.Exponential(torch.tensor([0.5, 2.0, 10.0])).rsample((4,))
    if name == "laplace":
        return D.Laplace(torch.tensor([0.0, 3.0]), torch.tensor([1.0, 0.2])).rsample((6,))
    if name == "cauchy":
        return D.Cauchy(torch.tensor(1.0), torch.tensor(2.0)).rsample((5,))
    if name == "geometric":
        return D.Geometric(torch.tensor([0.2, 0.7])).sample((6,))
    if name == "bernoulli":
        return D.Bernoulli(torch.tensor([0.1, 0.5, 0.9])).sample((5,))
    if name == "bernoulli_logits":
        return D.Bernoulli(logits=torch.tensor([-1.0, 2.0])).sample((4,))
    if name == "categorical":
        return D.Categorical(torch.tensor([0.1, 0.2, 0.3, 0.4])).sample((12,))
    if name == "categorical_batched":
        return D.Categorical(logits=torch.tensor([[0.0, 1.0, 2.0], [3.0, 0.0, -1.0]])).sample((3, 2))
    if name == "one_hot_categorical":
        return D.OneHotCategorical(torch.tensor([[0.2, 0.3, 0.5], [0.7, 0.2, 0.1]])).sample((3,))
    if name == "log_normal":
        return D.LogNormal(torch.tensor([0.0, 1.0]), torch.tensor([0.5, 0.25])).sample((4,))
    if name == "multivariate_normal":
        scale_tril = _t(torch, [[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [-0.3, 0.1, 0.7]])
        return D.MultivariateNormal(_t(torch, [1.0, -1.0, 0.0]), scale_tril=scale_tril).rsample((4,))
    if name == "independent_normal":
        return D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1).rsample((2,))
    if name == "transformed_sigmoid_affine":
        base = D.Normal(torch.zeros(3), torch.ones(3))
        return D.TransformedDistribution(base, [D.SigmoidTransform(), D.AffineTransform(1.0, 2.0)]).sample((2,))
    if name == "expanded_normal":
        return D.Normal(torch.tensor(0.0), torch.tensor(1.0)).expand((2, 3)).sample((2,))
    if name == "sample_n":
        return D.Exponential(torch.tensor([1.0, 3.0])).sample((3,))
    if name == "gumbel":
        return D.Gumbel(torch.tensor([0.0, 2.0]), torch.tensor([1.0, 0.5])).sample((3,))
    if name == "pareto":
        return D.Pareto(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 0.5])).rsample((3,))
    if name == "weibull":
        return D.Weibull(torch.tensor([1.0, 2.0]), torch.tensor([0.7, 3.0])).sample((3,))
    if name == "weibull_expanded":
        return D.Weibull(torch.tensor(1.5), torch.tensor(2.0)).expand((3,)).sample((2,))
    if name == "half_normal":
        return D.HalfNormal(torch.tensor([1.0, 0.1])).rsample((4,))
    if name == "multinomial":
        return D.Multinomial(6, torch.tensor([[0.2, 0.3, 0.5], [0.9, 0.05, 0.05]])).sample((3,))
    raise KeyError(name)


def _values(torch: Any, name: str) -> dict[str, Any]:
    D = importlib.import_module(torch.__name__ + ".distributions")
    t = lambda data: _t(torch, data)  # noqa: E731
    x = t([0.1, 0.5, 0.9])
    if name == "values_normal":
        d, v = D.Normal(t([0.0, 1.0, -1.0]), t([1.0, 2.0, 0.5])), t([0.3, -1.0, 2.0])
        return _report(d, v, cdf=True, icdf=x)
    if name == "values_laplace":
        return _report(D.Laplace(t([0.0, 1.0, -1.0]), t([1.0, 2.0, 0.5])), t([0.3, -1.0, 2.0]), cdf=True, icdf=x)
    if name == "values_exponential":
        return _report(D.Exponential(t([0.5, 1.0, 4.0])), t([0.3, 1.0, 2.0]), cdf=True, icdf=x)
    if name == "values_uniform":
        return _report(D.Uniform(t([0.0, -1.0, 2.0]), t([1.0, 1.0, 5.0])), t([0.3, 0.5, 4.0]), cdf=True, icdf=x)
    if name == "values_bernoulli":
        d = D.Bernoulli(t([0.2, 0.5, 0.9]))
        return {**_report(d, t([1.0, 0.0, 1.0])), "support": d.enumerate_support().tolist(), "repr": repr(d)}
    if name == "values_categorical":
        d = D.Categorical(t([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]]))
        return {**_report(d, t([2.0, 0.0]), moments=False), "support": d.enumerate_support().tolist(),
                "mode": d.mode.tolist(), "repr": repr(d)}
    if name == "values_one_hot":
        d = D.OneHotCategorical(logits=t([[0.0, 1.0, 2.0], [1.0, 1.0, -3.0]]))
        return {**_report(d, t([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])), "support": d.enumerate_support().tolist()}
    if name == "values_beta":
        return _report(D.Beta(t([0.5, 2.0, 3.0]), t([0.5, 5.0, 1.5])), x)
    if name == "values_gamma":
        return _report(D.Gamma(t([0.5, 2.0, 7.5]), t([1.0, 0.5, 3.0])), t([0.3, 2.0, 2.5]), cdf=True)
    if name == "values_dirichlet":
        d = D.Dirichlet(t([[0.5, 2.0, 3.0], [0.3, 0.4, 0.6], [4.0, 4.0, 1.0]]))
        return _report(d, t([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8], [0.4, 0.4, 0.2]]))
    if name == "values_poisson":
        return _report(D.Poisson(t([0.5, 3.0, 20.0])), t([0.0, 2.0, 25.0]), entropy=False)
    if name == "values_binomial":
        d = D.Binomial(t([10.0, 10.0, 10.0]), t([0.1, 0.5, 0.8]))
        return {**_report(d, t([0.0, 5.0, 9.0])), "support": d.enumerate_support(expand=False).tolist()}
    if name == "values_geometric":
        return _report(D.Geometric(t([0.1, 0.5, 1.0])), t([3.0, 0.0, 0.0]))
    if name == "values_cauchy":
        return _report(D.Cauchy(t([0.0, 1.0]), t([1.0, 3.0])), t([0.5, -2.0]), moments=False, cdf=True,
                       icdf=t([0.2, 0.7]))
    if name == "values_log_normal":
        return _report(D.LogNormal(t([0.0, 1.0]), t([0.5, 1.5])), t([0.5, 4.0]), cdf=True, icdf=t([0.2, 0.7]))
    if name == "values_mvn":
        cov = t([[[2.0, 0.5], [0.5, 1.0]], [[1.0, -0.3], [-0.3, 0.5]]])
        d = D.MultivariateNormal(t([[0.0, 1.0], [1.0, -1.0]]), covariance_matrix=cov)
        out = _report(d, t([[[0.5, 0.5], [0.0, 0.0]], [[1.0, 2.0], [-1.0, 1.0]]]))
        return {**out, "scale_tril": d.scale_tril.tolist(), "precision": d.precision_matrix.tolist(), "repr": repr(d)}
    if name == "values_mvn_precision":
        d = D.MultivariateNormal(t([0.0, 1.0, 2.0]), precision_matrix=t([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2],
                                                                          [0.1, 0.2, 0.5]]))
        return {**_report(d, t([0.5, 0.5, 0.5])), "scale_tril": d.scale_tril.tolist(),
                "covariance": d.covariance_matrix.tolist()}
    if name == "values_transformed":
        base = D.Normal(t([0.0, 1.0]), t([1.0, 0.5]))
        d = D.TransformedDistribution(base, [D.TanhTransform(), D.AffineTransform(2.0, -3.0)])
        v = t([1.0, 0.5])
        return {"log_prob": d.log_prob(v).tolist(), "cdf": d.cdf(v).tolist(), "icdf": d.icdf(t([0.3, 0.6])).tolist(),
                "support": repr(d.support), "shapes": [list(d.batch_shape), list(d.event_shape)]}
    if name == "values_student_t":
        return _report(D.StudentT(t([0.8, 1.5, 5.0]), t([0.0, 1.0, -1.0]), t([1.0, 2.0, 0.5])), t([0.3, -1.0, 2.0]))
    if name == "values_chi2":
        return {**_report(D.Chi2(t([1.0, 2.5, 7.0])), t([0.3, 1.0, 9.0]), cdf=True), "df": D.Chi2(t([3.0])).df.tolist()}
    if name == "values_half_normal":
        return _report(D.HalfNormal(t([1.0, 2.0, 0.5])), t([0.3, 1.0, 2.0]), cdf=True, icdf=x)
    if name == "values_gumbel":
        return _report(D.Gumbel(t([0.0, 1.0, -1.0]), t([1.0, 2.0, 0.5])), t([0.3, -1.0, 2.0]), cdf=True, icdf=x)
    if name == "values_pareto":
        d = D.Pareto(t([1.0, 2.0, 0.5]), t([0.5, 1.5, 3.0]))
        return {**_report(d, t([1.3, 2.0, 2.5]), cdf=True, icdf=x), "support": repr(D.Pareto(1.0, 2.0).support)}
    if name == "values_weibull":
        return _report(D.Weibull(t([1.0, 2.0, 0.5]), t([0.5, 1.5, 3.0])), t([0.3, 1.0, 2.0]), cdf=True, icdf=x)
    if name == "values_multinomial":
        d = D.Multinomial(5, t([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]]))
        return _report(d, t([[1.0, 1.0, 3.0], [0.0, 2.0, 3.0]]))
    if name == "kl_pairs":
        return _kl_pairs(torch, D, t)
    raise KeyError(name)


def _report(d: Any, value: Any, moments: bool = True, entropy: bool = True, cdf: bool = False,
            icdf: Any = None) -> dict[str, Any]:
    out: dict[str, Any] = {"log_prob": d.log_prob(value).tolist(), "shapes": [list(d.batch_shape),
                                                                              list(d.event_shape)]}
    if moments:
        out.update(mean=d.mean.tolist(), variance=d.variance.tolist(), stddev=d.stddev.tolist())
    if entropy:
        out["entropy"] = d.entropy().tolist()
    if cdf:
        out["cdf"] = d.cdf(value).tolist()
    if icdf is not None:
        out["icdf"] = d.icdf(icdf).tolist()
    return out


def _kl_pairs(torch: Any, D: Any, t: Any) -> dict[str, Any]:
    a, b = t([0.5, 2.0]), t([1.5, 0.7])
    pairs = {
        "normal": (D.Normal(a, b), D.Normal(b, a)), "laplace": (D.Laplace(a, b), D.Laplace(b, a)),
        "exponential": (D.Exponential(a), D.Exponential(b)), "gamma": (D.Gamma(a, b), D.Gamma(b, a)),
        "beta": (D.Beta(a, b), D.Beta(b, a)), "poisson": (D.Poisson(a), D.Poisson(b)),
        "bernoulli": (D.Bernoulli(a / 3), D.Bernoulli(b / 2)),
        "uniform": (D.Uniform(a - 3, a), D.Uniform(a - 4, a + 1)),
        "uniform_inf": (D.Uniform(a - 3, a), D.Uniform(a - 1, a + 1)),
        "categorical": (D.Categorical(t([0.2, 0.3, 0.5])), D.Categorical(t([0.5, 0.25, 0.25]))),
        "dirichlet": (D.Dirichlet(t([1.0, 2.0, 3.0])), D.Dirichlet(t([0.5, 0.5, 4.0]))),
        "binomial": (D.Binomial(t([5.0, 5.0]), a / 3), D.Binomial(t([5.0, 4.0]), b / 2)),
        "geometric": (D.Geometric(a / 3), D.Geometric(b / 2)), "cauchy": (D.Cauchy(a, b), D.Cauchy(b, a)),
        "one_hot": (D.OneHotCategorical(t([0.2, 0.8])), D.OneHotCategorical(t([0.6, 0.4]))),
        "mvn": (D.MultivariateNormal(a, t([[1.0, 0.2], [0.2, 2.0]])),
                D.MultivariateNormal(b, scale_tril=t([[1.5, 0.0], [0.4, 0.6]]))),
        "independent": (D.Independent(D.Normal(a, b), 1), D.Independent(D.Normal(b, a), 1)),
        "log_normal": (D.LogNormal(a, b), D.LogNormal(b, a)),
        "normal_laplace": (D.Normal(a, b), D.Laplace(b, a)), "laplace_normal": (D.Laplace(a, b), D.Normal(b, a)),
        "gamma_exponential": (D.Gamma(a, b), D.Exponential(a)), "exponential_gamma": (D.Exponential(a), D.Gamma(b, a)),
        "gamma_normal": (D.Gamma(a, b), D.Normal(b, a)), "beta_normal": (D.Beta(a, b), D.Normal(b, a)),
        "uniform_normal": (D.Uniform(a - 1, a), D.Normal(b, a)), "uniform_gamma": (D.Uniform(a, a + 1), D.Gamma(b, a)),
        "uniform_beta": (D.Uniform(a / 4, a / 4 + 0.1), D.Beta(b, a)), "normal_gamma": (D.Normal(a, b), D.Gamma(a, b)),
        "gumbel": (D.Gumbel(a, b), D.Gumbel(b, a)), "half_normal": (D.HalfNormal(a), D.HalfNormal(b)),
        "pareto": (D.Pareto(a, b + 1), D.Pareto(b, a)), "chi2": (D.Chi2(a), D.Chi2(b)),
        "pareto_normal": (D.Pareto(a, b + 2), D.Normal(a, b)), "pareto_gamma": (D.Pareto(a, b + 1), D.Gamma(a, b)),
        "pareto_exponential": (D.Pareto(a, t([1.5, 0.5])), D.Exponential(b)),
        "normal_gumbel": (D.Normal(a, b), D.Gumbel(b, a)), "gumbel_normal": (D.Gumbel(a, b), D.Normal(b, a)),
        "gamma_gumbel": (D.Gamma(a, b), D.Gumbel(b, a)), "exponential_gumbel": (D.Exponential(a), D.Gumbel(b, a)),
        "uniform_gumbel": (D.Uniform(a, a + 1), D.Gumbel(b, a)),
        "uniform_pareto": (D.Uniform(a, a + 1), D.Pareto(b, a)),
        "normal_pareto": (D.Normal(a, b), D.Pareto(a, b)), "gumbel_uniform": (D.Gumbel(a, b), D.Uniform(a, a + 1)),
    }
    return {k: D.kl_divergence(p, q).tolist() for k, (p, q) in pairs.items()}


def _error(torch: Any, name: str) -> None:
    D = importlib.import_module(torch.__name__ + ".distributions")
    if name == "error_scale":
        D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, -1.0]))
    elif name == "error_probs_logits":
        D.Bernoulli(probs=torch.tensor(0.5), logits=torch.tensor(0.0))
    elif name == "error_sample_support":
        D.Exponential(torch.tensor([1.0, 2.0])).log_prob(torch.tensor([1.0, -1.0]))
    elif name == "error_sample_shape":
        D.Normal(torch.zeros(3), torch.ones(3)).log_prob(torch.zeros(2))
    elif name == "error_kl_pair":
        D.kl_divergence(D.Categorical(torch.tensor([0.5, 0.5])), D.Normal(0.0, 1.0))
    elif name == "error_categorical_dim":
        D.Categorical(torch.tensor(0.5))
    elif name == "error_mvn_two_params":
        D.MultivariateNormal(torch.zeros(2), torch.eye(2), scale_tril=torch.eye(2))
    elif name == "error_uniform_bounds":
        D.Uniform(torch.tensor([0.0, 2.0]), torch.tensor([1.0, 1.0]))
    elif name == "error_independent_ndims":
        D.Independent(D.Normal(torch.zeros(3), 1.0), 2)
    elif name == "error_dirichlet_concentration":
        D.Dirichlet(torch.tensor([[1.0, 0.0], [1.0, 2.0]]))


def run_case(torch: Any, name: str) -> dict[str, Any]:
    if name in SAMPLE_CASES:
        sample = _sample(torch, name)
        return {"sample": sample.tolist(), "dtype": str(sample.dtype), "shape": list(sample.shape)}
    if name in VALUE_CASES:
        return _values(torch, name)
    try:
        _error(torch, name)
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}
    return {"error": None}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "distributions.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
