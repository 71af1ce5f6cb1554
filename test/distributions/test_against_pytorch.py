"""torch.distributions against PyTorch 2.13's results (tools/record_distributions_reference.py):
the same samples for the same torch.manual_seed wherever PyTorch's sampler is a composition of
ops (Normal, Uniform, Exponential, Laplace, Cauchy, Geometric, Bernoulli, Categorical,
OneHotCategorical, LogNormal, MultivariateNormal, Independent, TransformedDistribution), and the
same log_prob/cdf/icdf/entropy/moments, KL divergences, reprs and error messages."""
import json
from pathlib import Path

import pytest

import torch
from recorded import assert_matches
from tools import record_distributions_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "distributions" / "distributions.json")
                       .read_text())["cases"]



@pytest.mark.parametrize("case", record.SAMPLE_CASES)
def test_composed_samplers_draw_pytorchs_samples_for_the_same_seed(case):
    assert_matches(record.run_case(torch, case), REFERENCE[case], case, 1e-6, 1e-9)


@pytest.mark.parametrize("case", record.VALUE_CASES)
def test_densities_moments_and_kl_match_pytorch(case):
    assert_matches(record.run_case(torch, case), REFERENCE[case], case, 1e-9, 1e-9)


@pytest.mark.parametrize("case", record.ERROR_CASES)
def test_errors_match_pytorchs_type_and_message(case):
    assert record.run_case(torch, case) == REFERENCE[case]
