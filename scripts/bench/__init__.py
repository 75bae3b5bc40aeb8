"""Benchmarks: they print measurements, they are not tests."""
