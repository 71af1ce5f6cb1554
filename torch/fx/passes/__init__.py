"""torch.fx.passes: analyses and transformations over GraphModules (shape_prop so far)."""
