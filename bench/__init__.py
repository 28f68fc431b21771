"""mneme's benchmarks (see bench/README.md)."""
