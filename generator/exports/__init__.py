"""Exports (`pnp export`): output kinds a build never makes, written whole into
`<game>-export/<kind>/` with a preflight report: images, print-shop PDFs, Tabletop Simulator."""
