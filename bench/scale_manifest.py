#!/usr/bin/env python3
"""Scales dbt artifacts of a generated project up by replicating the whole project.

    scale_manifest.py --copies K --out DIR IN_DIR [IN_DIR ...]

Each IN_DIR holds dbt artifacts (`manifest.json`, and optionally `run_results.json` and
`sources.json`); the scaled ones are written to DIR/<basename of IN_DIR>/ under the same
names. Copy 0 keeps every name; copy c > 0 renames every node, source group and source table
with the suffix `_r<c>` everywhere it appears (unique ids, names, aliases, paths, fqn,
relation names, raw and compiled code, depends_on, refs, parent_map, child_map, test
kwargs, run results, source freshness results), so each copy is a complete, valid copy of
the DAG with its own relations, and edges stay inside their copy. Macros, docs and the
metadata (invocation id included, so run_results still matches its manifest) are shared.

A name is renamed where it is a whole identifier: a maximal run of [A-Za-z0-9_] equal to a
node's `name`, a source's `source_name` or a source's `name`. With the names of
bench/gen_project.py (stg_00001, m03_00042, raw_01, src_01_02, bench_seed_1, ...) that
touches nothing else. Standard library only.
"""
import argparse
import json
import os
import re
import sys

IDENT = re.compile(r"[A-Za-z0-9_]+")


def names_of(manifest):
    names = set()
    for node in manifest["nodes"].values():
        names.add(node["name"])
    for source in manifest["sources"].values():
        names.add(source["name"])
        names.add(source["source_name"])
    for unit_test in manifest.get("unit_tests", {}).values():
        names.add(unit_test["name"])
    return names


def renamer(names, copy):
    if copy == 0:
        return lambda text: text
    suffix = f"_r{copy}"

    def one(m):
        word = m.group(0)
        return word + suffix if word in names else word

    return lambda text: IDENT.sub(one, text)


def dump(value):
    return json.dumps(value, separators=(", ", ": "))


def write_manifest(manifest, names, copies, out_path):
    renames = [renamer(names, c) for c in range(copies)]
    replicated = ("nodes", "sources", "unit_tests", "parent_map", "child_map")
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("{")
        first_key = True
        for key, value in manifest.items():
            out.write(("" if first_key else ", ") + dump(key) + ": ")
            first_key = False
            if key not in replicated or not isinstance(value, dict):
                out.write(dump(value))
                continue
            out.write("{")
            first = True
            for rename in renames:
                for entry_id, entry in value.items():
                    out.write(("" if first else ", ") + rename(dump(entry_id)) + ": " + rename(dump(entry)))
                    first = False
            out.write("}")
        out.write("}\n")


def write_results(document, names, copies, out_path):
    """run_results.json and sources.json: replicate the `results` list."""
    renames = [renamer(names, c) for c in range(copies)]
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("{")
        first_key = True
        for key, value in document.items():
            out.write(("" if first_key else ", ") + dump(key) + ": ")
            first_key = False
            if key != "results":
                out.write(dump(value))
                continue
            out.write("[" + ", ".join(rename(dump(r)) for rename in renames for r in value) + "]")
        out.write("}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("inputs", nargs="+", help="directories with manifest.json [run_results.json] [sources.json]")
    args = ap.parse_args()
    if args.copies < 1:
        sys.exit("scale_manifest.py: --copies must be at least 1")
    for in_dir in args.inputs:
        with open(os.path.join(in_dir, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        names = names_of(manifest)
        out_dir = os.path.join(args.out, os.path.basename(os.path.normpath(in_dir)))
        os.makedirs(out_dir, exist_ok=True)
        write_manifest(manifest, names, args.copies, os.path.join(out_dir, "manifest.json"))
        for doc in ("run_results.json", "sources.json"):
            path = os.path.join(in_dir, doc)
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    write_results(json.load(f), names, args.copies, os.path.join(out_dir, doc))
        print(f"scale_manifest.py: {in_dir} -> {out_dir}: {len(manifest['nodes']) * args.copies} nodes, "
              f"{os.path.getsize(os.path.join(out_dir, 'manifest.json')) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
