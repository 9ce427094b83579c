#!/usr/bin/env python3
"""Generates a large dbt manifest by duplicating the nodes of a real one.

Usage: gen_big_manifest.py <real manifest.json> <out.json> [--nodes 50000] [--pad-sql BYTES]

Every model, seed, snapshot and test of the input is copied with a numeric suffix
(model.shop.orders -> model.shop.orders_00042); dependencies between copied nodes point
inside the same copy, so the DAG has the real shape. parent_map and child_map are rebuilt,
so the file has the sections a real large manifest has. --pad-sql adds about BYTES of
select-list lines to each SQL model's raw and compiled code, for the larger nodes of real
projects (long select lists). Standard library only.
"""
import argparse
import copy
import json


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("manifest")
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=50000)
    ap.add_argument("--pad-sql", type=int, default=0)
    args = ap.parse_args()
    with open(args.manifest) as f:
        m = json.load(f)
    base = m["nodes"]
    padding = "".join("    column_%04d,\n" % i for i in range(args.pad_sql // 20))
    copies = max(1, args.nodes // max(1, len(base)))
    nodes, parent_map = {}, {}
    for c in range(copies):
        suffix = "_%05d" % c
        renamed = {uid: uid + suffix for uid in base}
        for uid, node in base.items():
            n = copy.deepcopy(node)
            nid = renamed[uid]
            n["unique_id"] = nid
            n["name"] = n["name"] + suffix
            if "alias" in n and n["alias"]:
                n["alias"] = n["alias"] + suffix
            deps = n.get("depends_on", {}).get("nodes", [])
            n.setdefault("depends_on", {})["nodes"] = [renamed.get(d, d) for d in deps]
            if n.get("relation_name"):
                n["relation_name"] = n["relation_name"][:-1] + suffix + '"'
            if n.get("compiled_code"):
                n["compiled_code"] = n["compiled_code"] + "\n-- copy %d\n" % c
            if padding and n["resource_type"] == "model" and n.get("language") == "sql":
                for key in ("raw_code", "compiled_code"):
                    if n.get(key) and "select" in n[key]:
                        n[key] = n[key].replace("select", "select\n" + padding, 1)
            nodes[nid] = n
            parent_map[nid] = n["depends_on"]["nodes"]
    child_map = {k: [] for k in parent_map}
    for child, parents in parent_map.items():
        for p in parents:
            child_map.setdefault(p, []).append(child)
    m["nodes"] = nodes
    m["parent_map"] = parent_map
    m["child_map"] = child_map
    with open(args.out, "w") as f:
        json.dump(m, f)  # dbt writes one line with ", " and ": " separators
    print("nodes:", len(nodes))


if __name__ == "__main__":
    main()
