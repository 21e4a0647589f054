"""The pipeline: a build run stage by stage, parts laid out once on every core and kept
in the cache, outputs written whole with their manifest, and `pnp watch` kept warm."""
