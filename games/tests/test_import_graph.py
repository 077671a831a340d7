"""The games app's modules import each other without a cycle, and the service layer imports
nothing inside a function (a cycle dodged that way is still a cycle)."""

import ast
from pathlib import Path

import games

ROOT = Path(games.__file__).resolve().parent


def module_name(path):
    parts = ("games",) + path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules():
    """``{name: path}`` of every module of the games app but its tests and migrations."""
    found = {}
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).parts
        if rel[0] in ("tests", "migrations"):
            continue
        found[module_name(path)] = path
    return found


def imported(node, name, known):
    """The games modules a top-level import statement ``node`` of module ``name`` names."""
    package = name if known[name].name == "__init__.py" else name.rpartition(".")[0]
    targets = []
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            anchor = package.split(".")
            anchor = anchor[: len(anchor) - node.level + 1]
            base = ".".join(anchor + ([base] if base else []))
        targets = [f"{base}.{alias.name}" for alias in node.names]
        if not name.startswith(base + "."):  # a package's own modules name their siblings
            targets.append(base)
    return {target for target in targets if target in known}


def graph():
    known = modules()
    edges = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text())
        found = set()
        for node in tree.body:
            for inner in (
                ast.walk(node)
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                else ()
            ):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    found |= imported(inner, name, known)
        # importing a.b.c runs a and a.b first, unless the importer lives inside them
        for target in list(found):
            parts = target.split(".")
            for i in range(2, len(parts)):
                parent = ".".join(parts[:i])
                if parent in known and not name.startswith(parent + "."):
                    found.add(parent)
        found.discard(name)
        edges[name] = found
    return edges


def test_the_games_modules_import_each_other_without_a_cycle():
    edges = graph()
    cycles = []
    state = {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    assert "games.services" in edges and "games.services.moves" in edges["games.services"]
    assert cycles == []


def test_the_service_layer_imports_nothing_inside_a_function():
    late = []
    for path in (ROOT / "services").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                late += [
                    f"{path.name}:{inner.lineno}"
                    for inner in ast.walk(node)
                    if isinstance(inner, (ast.Import, ast.ImportFrom))
                ]
    assert late == []


def test_no_module_of_the_service_layer_is_over_500_lines():
    sizes = {
        path.name: len(path.read_text().splitlines()) for path in (ROOT / "services").glob("*.py")
    }
    assert not (ROOT.parent / "games" / "services.py").exists()
    assert sizes and max(sizes.values()) <= 500, sizes
