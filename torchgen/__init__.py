"""Ember's build-time code generator: stdlib, pyyaml and jinja2 only; never imports torch."""
