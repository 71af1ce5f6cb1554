"""torch.distributions against PyTorch 2.13's results (tools/record_distributions_reference.py):
the same samples for the same torch.manual_seed wherever PyTorch's sampler is a composition of
ops (Normal, Uniform, Exponential, Laplace, Cauchy, Geometric, Bernoulli, Categorical,
OneHotCategorical, LogNormal, MultivariateNormal, Independent, TransformedDistribution), and the
same log_prob/cdf/icdf/entropy/moments, KL divergences, reprs and error messages."""
import json
import math
from pathlib import Path

import pytest

import torch
from tools import record_distributions_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "distributions" / "distributions.json")
                       .read_text())["cases"]


def _close(mine, ref, where, rel=1e-6):
    if isinstance(ref, list):
        assert isinstance(mine, list) and len(mine) == len(ref), (where, mine, ref)
        for m, r in zip(mine, ref):
            _close(m, r, where, rel)
    elif isinstance(ref, dict):
        assert sorted(mine) == sorted(ref), where
        for k in ref:
            _close(mine[k], ref[k], f"{where}.{k}", rel)
    elif isinstance(ref, float):
        if math.isnan(ref) or math.isinf(ref):
            assert mine == ref or (math.isnan(ref) and math.isnan(mine)), (where, mine, ref)
        else:
            assert math.isclose(mine, ref, rel_tol=rel, abs_tol=1e-9), (where, mine, ref)
    else:
        assert mine == ref, (where, mine, ref)


@pytest.mark.parametrize("case", record.SAMPLE_CASES)
def test_composed_samplers_draw_pytorchs_samples_for_the_same_seed(case):
    _close(record.run_case(torch, case), REFERENCE[case], case, rel=1e-6)


@pytest.mark.parametrize("case", record.VALUE_CASES)
def test_densities_moments_and_kl_match_pytorch(case):
    _close(record.run_case(torch, case), REFERENCE[case], case, rel=1e-9)


@pytest.mark.parametrize("case", record.ERROR_CASES)
def test_errors_match_pytorchs_type_and_message(case):
    assert record.run_case(torch, case) == REFERENCE[case]
