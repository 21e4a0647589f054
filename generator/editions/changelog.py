"""What changed since an edition, written for people: `pnp changes` prints it, and `pnp
reprint` writes it as CHANGELOG.md, in the pack's language (templates/lang `changelog`)."""

from __future__ import annotations

from collections.abc import Collection

from ..text.icons import as_text
from ..text.language import section_words
from .record import Changed, Changes

REACH_NAMED = 3  # a rule reaching at most this many faces of a deck names them; more, a count


def markdown(changes: Changes, title: str, language: str, deck_names: dict[str, str],
             icons: Collection[str] = ()) -> str:
    """The changes as Markdown: the rules, then the faces by deck, new, removed and counted
    again, then the rulebook by section; an icon of `icons` in a name as `[name]`."""
    words = section_words(language, "changelog")
    lines = [f"# {title} — {words['title']} {words['since']} {changes.since} "
             f"({changes.old_version} → {changes.new_version})", ""]
    if changes.empty:
        return "\n".join([*lines, words["nothing"], ""])
    if changes.rules:
        lines += [f"## {words['rules']}", ""]
        for rule in changes.rules:
            reached = _reach(rule.faces, changes, deck_names)
            if rule.sections:
                reached.append(f"{words['rulebook']} " + ", ".join(rule.sections))
            lines.append(f"- `{rule.path}`: {_value(rule.old)} → {_value(rule.new)}"
                         + (f" — {words['reaches']}: {'; '.join(reached)}" if reached else ""))
        lines.append("")
    if changes.changed:
        lines += [f"## {words['changed']}", ""]
        for deck, items in _by_deck(changes.changed).items():
            lines += [f"### {deck_names.get(deck, deck)}", ""]
            for item in items:
                why = "; ".join(words["restyled"] if reason == "restyled" else reason
                                for reason in item.why)
                lines.append(f"- {_name(item.name, item.card)} ×{item.copies} "
                             f"({words['tag']} {item.old_tag} → {item.new_tag}): {why}")
            lines.append("")
    for heading, entries in ((words["added"], changes.added), (words["removed"], changes.removed)):
        if entries:
            lines += [f"## {heading}", ""]
            lines += [f"- {deck_names.get(entry['deck'], entry['deck'])}: "
                      f"{_name(entry['name'], entry['card'])} ×{entry['copies']} "
                      f"({words['tag']} {entry.get('tag', '')})" for entry in entries]
            lines.append("")
    if changes.counts:
        lines += [f"## {words['counts']}", ""]
        lines += [f"- {key}: {name} {before} → {now} {words['copies']}"
                  for key, name, before, now in changes.counts]
        lines.append("")
    if changes.rulebook:
        lines += [f"## {words['rulebook']}", ""]
        for section, diff in changes.rulebook:
            lines += [f"### {section}", "", "```diff", *diff, "```", ""]
    return as_text("\n".join(lines), icons)


def _by_deck(changed: list[Changed]) -> dict[str, list[Changed]]:
    """Changed faces grouped by deck, in order."""
    found: dict[str, list[Changed]] = {}
    for item in changed:
        found.setdefault(item.deck, []).append(item)
    return found


def _reach(keys: list[str], changes: Changes, deck_names: dict[str, str]) -> list[str]:
    """The faces a rule reaches, by deck: a few by name, more as a count."""
    names = {item.key: _name(item.name, item.card) for item in changes.changed}
    by_deck: dict[str, list[str]] = {}
    for key in keys:
        deck, _, card = key.partition("/")
        by_deck.setdefault(deck, []).append(names.get(key, card))
    return [f"{deck_names.get(deck, deck)} " + (", ".join(cards) if len(cards) <= REACH_NAMED
                                                 else f"×{len(cards)}")
            for deck, cards in by_deck.items()]


def _name(name: str, card: str) -> str:
    """A face as a list names it: its name and card id."""
    return f"{name} {card}" if not card.startswith("back:") else f"{name} ({card})"


def _value(value: object) -> str:
    """A rule's value as the changelog shows it."""
    return "—" if value is None else str(value)
