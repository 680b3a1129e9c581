"""Experiment framework for `make experiments` (docs/experiments.md)."""
