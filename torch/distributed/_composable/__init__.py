"""torch.distributed._composable: PyTorch's older path of fully_shard (fsdp/)."""
