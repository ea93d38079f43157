"""Ready-made contexts: printing, counting, tracing, and running NumPy code on a GPU."""
