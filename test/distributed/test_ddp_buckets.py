"""DistributedDataParallel lays out its gradient buckets as PyTorch 2.13's reducer does, in each iteration, as a
communication hook sees them: one bucket first unless find_unused_parameters, then the order gradients became
ready; bucket_cap_mb, bucket_cap_mb_list, static_graph and mixed dtypes (recorded by
tools/record_ddp_buckets_reference.py)."""
import json
from pathlib import Path

import pytest

import torch
from tools.record_ddp_buckets_reference import CONFIGS, in_one_rank_group, record

REFERENCE = json.loads((Path(__file__).resolve().parent / "data" / "ddp_buckets.json").read_text())


@pytest.fixture(scope="module")
def layouts():
    return in_one_rank_group(torch, lambda: record(torch))


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_buckets_are_laid_out_as_pytorchs_in_each_iteration(layouts, config):
    assert layouts[config] == REFERENCE["layouts"][config]


def test_bucket_cap_mb_list_and_batched_grad_copy_are_accepted_with_pytorchs_attributes():
    def check():
        ddp = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2), bucket_cap_mb_list=[1, 2],
                                                        batched_grad_copy=True)
        assert ddp.bucket_bytes_cap == 2 << 20 and ddp.bucket_bytes_cap_list == [1 << 20, 2 << 20]
        assert ddp.batched_grad_copy
    in_one_rank_group(torch, check)
