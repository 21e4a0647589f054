"""Editions: what was printed, recorded in the pack (`pnp release`), what prints
differently since (`pnp changes`), and only that printed again (`pnp reprint`)."""
