"""One module per seed paper; each registers that paper's headlines."""
