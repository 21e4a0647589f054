"""Stage 1, the pack: where a pack is, its files read safely (YAML with lines, CSV and
XLSX decks, images, git revisions), its format as pydantic models, the rules data, and the
packs `pnp new` writes and the JSON Schemas `pnp schema` writes."""
