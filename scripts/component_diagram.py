#!/usr/bin/env python3
"""The component diagram of docs/ARCHITECTURE.md, drawn from the build graph.

  scripts/component_diagram.py BUILD_DIR            prints the mermaid diagram
  scripts/component_diagram.py BUILD_DIR --check DOC
                                                     fails when DOC's diagram (between the
                                                     `component-diagram` markers) differs from it
  scripts/component_diagram.py BUILD_DIR --write DOC rewrites DOC's diagram

Reads BUILD_DIR/ods_targets.txt (cmake/OdsTargetGraph.cmake): the product libraries (ods_*,
not the test ones under tests/) and the two executables, an arrow per direct link between them,
solid for PUBLIC (or INTERFACE) links, dotted for PRIVATE ones. Run by ctest as
`component_diagram` (labels unit, tier1), so the doc can't drift from the CMake link lines.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_links import GENEX, read_targets

BEGIN = "<!-- component-diagram: scripts/component_diagram.py writes what follows -->"
END = "<!-- end of component-diagram -->"
EXECUTABLES = ("ods", "ods-operator")


def product_targets(targets, root):
    keep = {}
    for name, t in targets.items():
        folder = os.path.relpath(t["dir"], root)
        if name in EXECUTABLES or (
                name.startswith("ods_") and t["type"] in ("STATIC_LIBRARY", "INTERFACE_LIBRARY")
                and not folder.startswith(("tests", "bench", "fuzz")) and name not in ("ods_settings",)
                and not name.endswith("_test_programs") and not name.endswith("_fake_client")
                and not name.startswith("ods_test_")):
            keep[name] = (t, folder)
    return keep


def node_id(name):
    return ("X_" if name in EXECUTABLES else "L_") + re.sub(r"[^A-Za-z0-9]", "_", name.removeprefix("ods_"))


def label(name, folder):
    if name in EXECUTABLES:
        return f"{name} (executable, {folder}/)"
    return f"ods::{name.removeprefix('ods_')} ({folder}/)"


def links(t, key, alias):
    """The targets named by one link property (`key`) of target `t`, generator expressions such as
    $<LINK_ONLY:x> unwrapped and ods::x aliases mapped to their target names."""
    return {alias.get(GENEX.sub(r"\1", d), GENEX.sub(r"\1", d)) for d in t.get(key, [])}


def diagram(build_dir):
    targets = read_targets(os.path.join(build_dir, "ods_targets.txt"))
    root = os.path.commonpath([t["dir"] for t in targets.values()])
    keep = product_targets(targets, root)
    alias = {f"ods::{n.removeprefix('ods_')}": n for n in keep}
    lines = ["```mermaid", "flowchart TD"]
    for name in sorted(keep):
        lines.append(f'  {node_id(name)}["{label(name, keep[name][1])}"]')
    lines.append("")
    for name in sorted(keep):
        t = keep[name][0]
        public = {alias.get(d, d) for d in t.get("INTERFACE_LINK_LIBRARIES", []) if not GENEX.match(d)}
        for dep in sorted(links(t, "LINK_LIBRARIES", alias) | links(t, "INTERFACE_LINK_LIBRARIES", alias)):
            if dep in keep and dep != name:
                arrow = "-->" if dep in public else "-.->"
                lines.append(f"  {node_id(name)} {arrow} {node_id(dep)}")
    lines.append("```")
    return "\n".join(lines)


def doc_block(text, doc):
    if BEGIN not in text or END not in text:
        sys.exit(f"component_diagram: {doc} has no {BEGIN!r} ... {END!r} block")
    start = text.index(BEGIN) + len(BEGIN)
    return start, text.index(END)


def main(argv):
    if len(argv) not in (1, 3) or (len(argv) == 3 and argv[1] not in ("--check", "--write")):
        sys.exit(__doc__)
    drawn = diagram(argv[0])
    if len(argv) == 1:
        print(drawn)
        return
    doc = argv[2]
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    start, end = doc_block(text, doc)
    if argv[1] == "--write":
        with open(doc, "w", encoding="utf-8") as f:
            f.write(text[:start] + "\n" + drawn + "\n" + text[end:])
    elif text[start:end].strip() != drawn.strip():
        sys.exit(f"component_diagram: {doc}'s diagram differs from the CMake link lines; "
                 f"rewrite it with scripts/component_diagram.py {argv[0]} --write {doc}")
    else:
        print(f"component_diagram: {doc} matches the build graph")


if __name__ == "__main__":
    main(sys.argv[1:])
