#!/usr/bin/env python3
"""The build graph equals the include graph (issue 24): checks every target of the build.

  scripts/check_links.py BUILD_DIR

reads BUILD_DIR/ods_targets.txt (written by cmake/OdsTargetGraph.cmake at configure time) and
the #include lines of each target's sources, and fails when

  - a target links an ODS component (a library with public headers under include/ods/) but
    includes none of its headers, public or private: the link is a dependency the code does
    not have;
  - a target includes a component's header (`ods/<component>/...`, or a private header beside
    its sources) without the component among its links or their public links: the include
    works only by accident of the include path.

A header belongs to the component whose include/ folder holds it (or, for a private header,
whose sources sit beside it). Where two components share a folder (providers/state/include),
a header belongs to those whose sources include it, else to the one with a source of the
same name, else to each of them. The walk
follows the target's own headers and the private headers of others it includes (their
includes count as the target's) and stops at another component's public header. Run by ctest as `link_graph` (labels unit, tier1).
"""
import os
import re
import sys
from collections import defaultdict

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)
GENEX = re.compile(r"^\$<LINK_ONLY:(.*)>$")


def read_targets(path):
    targets = {}
    current = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "TARGET":
                current = {"name": fields[1], "type": fields[2], "dir": fields[3]}
                targets[fields[1]] = current
            elif current is not None and len(fields) == 2:
                current[fields[0]] = [v for v in fields[1].split(";") if v]
    return targets


def target_name(link, targets):
    """The project target a link item names (ods::x is the alias of ods_x), or None."""
    match = GENEX.match(link)
    if match:
        link = match.group(1)
    if link.startswith("ods::"):
        link = "ods_" + link[len("ods::"):]
    return link if link in targets else None


def main(build_dir, source_dir):
    targets = read_targets(os.path.join(build_dir, "ods_targets.txt"))
    for t in targets.values():
        t["sources"] = [os.path.normpath(os.path.join(t["dir"], s)) for s in t.get("SOURCES", [])]
        t["links"] = {n for n in (target_name(link, targets) for link in t.get("LINK_LIBRARIES", [])) if n}
        # The public links: a PRIVATE dependency of a static library is there as $<LINK_ONLY:…>,
        # for the linker, and brings no headers.
        t["interface_links"] = {n for n in (target_name(link, targets) for link in t.get("INTERFACE_LINK_LIBRARIES", [])
                                            if not GENEX.match(link)) if n}

    # Components: libraries whose public include folders hold ods/<component>/.
    components = {}
    for name, t in targets.items():
        if not t["type"].endswith("_LIBRARY") and t["type"] != "INTERFACE_LIBRARY":
            continue
        roots = [d for d in t.get("INTERFACE_INCLUDE_DIRECTORIES", []) if os.path.isdir(os.path.join(d, "ods"))]
        if roots:
            components[name] = roots

    includes_cache = {}

    def includes_of(path):
        if path not in includes_cache:
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    includes_cache[path] = INCLUDE.findall(f.read())
            except OSError:
                includes_cache[path] = []
        return includes_cache[path]

    # owners[header] = the components it belongs to; written[header] = how it is included.
    owners = defaultdict(set)
    written_as = {}
    for name, roots in components.items():
        for root in roots:
            for folder, _, files in os.walk(os.path.join(root, "ods")):
                for file in files:
                    header = os.path.normpath(os.path.join(folder, file))
                    owners[header].add(name)
                    written_as[header] = os.path.relpath(header, root)
    # A header in a folder several components share belongs to those whose sources include
    # it, else to those with a source of the same name, else to each of them.
    for header, names in owners.items():
        if len(names) < 2:
            continue
        stem = os.path.splitext(os.path.basename(header))[0]
        by_includer = {n for n in names if any(written_as[header] in includes_of(s) for s in targets[n]["sources"])}
        by_stem = {n for n in names if stem in {os.path.splitext(os.path.basename(s))[0] for s in targets[n]["sources"]}}
        owners[header] = by_includer or by_stem or names
    for name in components:
        for source in targets[name]["sources"]:
            folder = os.path.dirname(source)
            for file in os.listdir(folder):
                path = os.path.join(folder, file)
                if file.endswith(".h") and path not in owners:
                    owners[path] = {name}
    all_roots = sorted({r for roots in components.values() for r in roots})
    # A header-only component: its headers are its sources, its interface links its links.
    for name, roots in components.items():
        t = targets[name]
        if t["type"] == "INTERFACE_LIBRARY":
            t["sources"] = sorted(h for h, names in owners.items() if name in names)
            t["links"] = t["interface_links"]

    def closure(name):
        """The targets `name` links and, through their public links, gets the headers of."""
        seen = set()
        todo = list(targets[name]["links"])
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo.extend(targets[n]["interface_links"])
        return seen

    problems = []
    for name, t in sorted(targets.items()):
        if not t["sources"]:
            continue
        search = [d for d in t.get("INCLUDE_DIRECTORIES", []) if os.path.isabs(d)] + all_roots
        used = set()  # the components whose headers the target includes
        reached = {}  # (header as written, includer) -> the components it belongs to
        seen = set()
        todo = [s for s in t["sources"] if os.path.isfile(s)]
        while todo:
            path = todo.pop()
            if path in seen:
                continue
            seen.add(path)
            for written in includes_of(path):
                for folder in [os.path.dirname(path)] + search:
                    found = os.path.normpath(os.path.join(folder, written))
                    if os.path.isfile(found):
                        break
                else:
                    continue  # the standard library or a third party's
                belongs = owners.get(found, set())
                if not belongs or name in belongs:
                    todo.append(found)  # the target's own header (or a shared helper's): its includes count
                    continue
                used |= belongs
                reached[(written, path)] = belongs
                if found not in written_as:
                    todo.append(found)  # another's private header: what it includes, the target needs
        linked = closure(name)
        for link in sorted(t["links"] & components.keys()):
            if link not in used:
                problems.append(f"{name} links {link} but includes none of its headers")
        # A header of several components is reachable when any of them is linked.
        for (written, path), names in sorted(reached.items()):
            if not names & linked:
                problems.append(f"{name} includes \"{written}\" ({'/'.join(sorted(names))}) in "
                                f"{os.path.relpath(path, source_dir)} without linking it")
    for p in problems:
        print(p)
    if problems:
        print(f"check_links: {len(problems)} mismatch(es) between the links and the includes "
              f"(fix the target_link_libraries or the #include)")
        return 1
    print(f"check_links: {sum(1 for t in targets.values() if t['sources'])} targets link exactly the ODS "
          f"components they include")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(os.path.abspath(sys.argv[1]), os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
