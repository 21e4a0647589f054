"""`pnp serve`: the live preview of a game in a browser."""
