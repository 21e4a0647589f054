"""Stage 2, checks: the findings every problem becomes (one table of codes), the validator
that checks a loaded pack agrees with itself, and the colour arithmetic readable print needs."""
