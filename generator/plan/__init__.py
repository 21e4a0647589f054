"""Stage 3, plan: card faces and backs rendered to HTML through sandboxed Jinja, imposed
on sheets in print geometry, and planned as parts (the types that pass between the stages)."""
