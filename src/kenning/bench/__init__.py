"""Benchmarks run by `kenning bench …`. They print figures; tests never assert wall-clock times."""
