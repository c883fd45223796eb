"""Benchmark suites, the runner and the result rows."""
