# The native DuckDB probe (docs/warehouses.md "DuckDB", "Native probe"): the dbt show probe's
# program (providers/dbt/src/show_probe_program.cc) step for step, run by the Python that runs dbt
# with only `duckdb` imported (the same DuckDB dbt-duckdb runs: same interpreter, same
# site-packages), on the database file the profile names, opened read-only. ods embeds this file
# and starts it as `<dbt's python> -c <this source>` in the directory dbt runs in
# (providers/duckdb/include/ods/duckdb/native_probe.h).
#
# Protocol: one JSON document on stdin, then end of file:
#   {"path": "<the profile's path>",
#    "quoting": {"database": true, "schema": true, "identifier": true},
#    "sources": [{"id", "database", "schema", "identifier"}, ...],   # every source
#    "nodes": [...],            # every enabled, non-ephemeral model, seed and snapshot
#    "request": {"sources": bool, "nodes": bool, "branches": [{"kinds", "format", "statements":
#                [{"name", "sql", "max_rows", "metadata_view", "only_if": {"statement", "column",
#                "max"} or ""}]}], "identity": {kind: sql}, "skip": {id: [names]},
#                "contents": [ids], "share": n, "shares": n}}
# One line on stdout: the answer, as the dbt show program answers it (sources, nodes, node_kinds,
# identities, contents, sources_elsewhere, contents_elsewhere; read by dbt::parse_probe_answer),
# or {"ods_probe_error": "<message>", "locked": bool} and exit code 3. Nothing is written anywhere.
#
# As dbt-duckdb does it: the listing is duckdb__list_relations_without_caching and a node's schema
# is first checked with duckdb__check_schema_exists (their SQL, their string literals); a relation
# renders as dbt's Relation does ("db"."schema"."name", each part quoted as the project's quoting
# says); values as dbt's agate tables print them (text as is, booleans True/False, numbers as
# written). Every statement runs in one transaction (dbt's run_query runs in one too).
import json
import sys
import time

# `-c` puts the working directory first on sys.path; dbt's console script does not.
sys.path = [p for p in sys.path if p not in ("", ".")]


class ProbeError(Exception):
    def __init__(self, message, locked=False):
        super().__init__(message)
        self.locked = locked


def quoted(part, quote):
    return '"' + part + '"' if quote else part


class Relations:
    """dbt's Relation rendering under the project's quoting."""

    def __init__(self, quoting):
        self.quoting = quoting

    def render(self, database, schema, name):
        parts = []
        if database is not None:
            parts.append(quoted(database, self.quoting.get("database", True)))
        parts.append(quoted(schema, self.quoting.get("schema", True)))
        parts.append(quoted(name, self.quoting.get("identifier", True)))
        return ".".join(parts)

    def information_schema(self, database, view):
        parts = []
        if database is not None:
            parts.append(quoted(database, self.quoting.get("database", True)))
        parts.append("INFORMATION_SCHEMA")
        if view:
            parts.append(view)
        return ".".join(parts)


def text_of(value):
    """A value as `value | string` prints dbt's agate cell."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, default=str)
    if isinstance(value, float):
        import decimal

        return str(decimal.Decimal(repr(value)))
    return str(value)


def as_int(text):
    try:
        return int(text)
    except ValueError:
        return 0


class Probe:
    def __init__(self, con, doc):
        self.con = con
        self.relations = Relations(doc.get("quoting", {}))
        self.doc = doc
        self.req = doc["request"]
        self.answer = {
            "sources": {},
            "nodes": {},
            "node_kinds": {},
            "identities": {},
            "contents": {},
            "sources_elsewhere": {},
            "contents_elsewhere": {},
        }
        self.listed = {}

    def query(self, sql):
        cursor = self.con.execute(sql)
        if cursor.description is None:
            return [], []
        return [c[0] for c in cursor.description], cursor.fetchall()

    def items(self):
        req = self.req
        share, shares = req.get("share", 0), max(req.get("shares", 1), 1)
        items = []
        if req.get("sources", True):
            ordered = sorted(self.doc["sources"], key=lambda s: s["id"].lower())
            for i, s in enumerate(ordered):
                if i % shares == share:
                    items.append(("source", s))
                else:
                    self.answer["sources_elsewhere"][s["id"]] = i % shares
        nodes = {n["id"]: n for n in self.doc["nodes"]}
        if req.get("nodes", True) and share == 0:
            items.extend(("node", n) for n in self.doc["nodes"])
        for i, uid in enumerate(sorted(req.get("contents", []), key=str.lower)):
            if i % shares != share:
                self.answer["contents_elsewhere"][uid] = i % shares
            elif uid in nodes:
                items.append(("content", nodes[uid]))
            else:
                self.answer["contents"][uid] = {"status": "missing", "why": "no relation for " + uid + " in the project"}
        return items

    def schema_exists(self, database, schema):
        sql = (
            "select count(*)\n        from system.information_schema.schemata\n"
            "        where lower(schema_name) = '" + schema.lower() + "'\n"
            "        and lower(catalog_name) = '" + str(database).lower() + "'"
        )
        _, rows = self.query(sql)
        return bool(rows) and rows[0][0] > 0

    def listing(self, kind, rel, wanted):
        database, schema = rel["database"], rel["schema"]
        names = {}
        if kind != "source" and not self.schema_exists(database, schema):
            return names
        sql = (
            "select\n      '" + str(database) + "' as database,\n      table_name as name,\n"
            "      table_schema as schema,\n      CASE table_type\n        WHEN 'BASE TABLE' THEN 'table'\n"
            "        WHEN 'VIEW' THEN 'view'\n        WHEN 'LOCAL TEMPORARY' THEN 'table'\n        END as type\n"
            "    from system.information_schema.tables\n    where lower(table_schema) = '" + schema.lower() + "'\n"
            "    and lower(table_catalog) = '" + str(database).lower() + "'"
        )
        columns, rows = self.query(sql)
        name_at, type_at = columns.index("name"), columns.index("type")
        for row in rows:
            name = row[name_at]
            if name is None or text_of(name).lower() not in wanted:
                continue
            kind_listed = text_of(row[type_at]) if row[type_at] is not None else "None"
            kind_listed = kind_listed.lower()
            names[name.lower()] = {
                "rel": self.relations.render(database, schema, name),
                "name": name,
                "type": kind_listed,
                "format": "",
                "kind": kind_listed,
                "database": database,
            }
        return names

    def fill(self, sql, rel, found):
        db = rel["database"] or ""
        return (
            sql.replace("{relation}", found["rel"])
            .replace("{database}", db.replace("'", "''"))
            .replace("{schema}", rel["schema"].replace("'", "''"))
            .replace("{identifier}", found["name"].replace("'", "''"))
        )

    def run_branch(self, branch, index, rel, found, skipped):
        answer = {"status": "ok", "fallback": index > 0, "branch": index, "row_sets": {}, "seconds": 0.0}
        answer["statements_skipped"] = []
        for st in branch["statements"]:
            if st["name"] in skipped:
                answer["statements_skipped"].append(st["name"])
                continue
            gate = st.get("only_if") or None
            if gate:
                prior = answer["row_sets"].get(gate["statement"], [])
                value = text_of(prior[0].get(gate["column"], "")) if prior else ""
                if not (value.isdigit() and as_int(value) <= gate["max"]):
                    continue
            sql = self.fill(st["sql"], rel, found)
            if st.get("metadata_view"):
                sql = sql.replace("{metadata_view}", self.relations.information_schema(found["database"], st["metadata_view"]))
            t0 = time.perf_counter()
            columns, rows = self.query(sql)
            answer["seconds"] += time.perf_counter() - t0
            out = []
            for row in rows[: st.get("max_rows", 1)]:
                out.append({c: text_of(v) for c, v in zip(columns, row) if v is not None})
            answer["row_sets"][st["name"]] = out
        return answer

    def answer_for(self, rel, found):
        why = ""
        for index, branch in enumerate(self.req["branches"]):
            kinds, fmt = branch.get("kinds") or [], branch.get("format") or ""
            if kinds and found["type"] not in kinds:
                why = why or "a " + found["type"] + ", not " + " or ".join(kinds)
            elif fmt and found["format"] != fmt:
                why = why or "not a " + fmt + " table (its format could not be confirmed)"
            else:
                skipped = self.req.get("skip", {}).get(rel["id"], [])
                return self.run_branch(branch, index, rel, found, skipped)
        return {"status": "skipped", "why": why}

    def identity(self, rel, found, key, selects):
        sql = self.req.get("identity", {}).get(found["type"])
        if not sql:
            return
        for view in sorted({part.split("}")[0] for part in sql.split("{metadata_view:")[1:]}):
            sql = sql.replace("{metadata_view:" + view + "}", self.relations.information_schema(found["database"], view))
        isql = self.fill(sql, rel, found)
        uid = rel["id"].replace("'", "''")
        selects.setdefault(key, []).append("select '" + uid + "', ods_i.identity from (" + isql + ") as ods_i")

    def run(self):
        items = self.items()
        wanted = {}
        key_of = lambda r: ((r["database"] or "") + "." + r["schema"]).lower()  # noqa: E731
        for _, rel in items:
            wanted.setdefault(key_of(rel), set()).add(rel["identifier"].lower())
        selects = {}
        for kind, rel in items:
            key = key_of(rel)
            if key not in self.listed:
                self.listed[key] = self.listing(kind, rel, wanted[key])
            found = self.listed[key].get(rel["identifier"].lower())
            if kind == "node":
                self.answer["nodes"][rel["id"]] = found is not None
                if found is not None and found["kind"]:
                    self.answer["node_kinds"][rel["id"]] = found["kind"]
                if found is not None:
                    self.identity(rel, found, key, selects)
                continue
            answers = self.answer["sources"] if kind == "source" else self.answer["contents"]
            if found is None:
                where = str(rel["database"]) + "." + rel["schema"] + "." + rel["identifier"]
                answers[rel["id"]] = {"status": "missing", "why": "relation " + where + " does not exist"}
            else:
                answers[rel["id"]] = self.answer_for(rel, found)
        for key, batch in selects.items():
            for start in range(0, len(batch), 500):
                _, rows = self.query(" union all ".join(batch[start : start + 500]))
                for row in rows:
                    if row[1] is not None and text_of(row[1]):
                        self.answer["identities"][text_of(row[0])] = text_of(row[1])
        return self.answer


def connect(path):
    try:
        import duckdb
    except Exception as e:  # noqa: BLE001 - any import failure leaves the probe to dbt
        raise ProbeError("duckdb could not be imported by dbt's Python: " + str(e))
    try:
        return duckdb.connect(path, read_only=True)
    except Exception as e:  # noqa: BLE001
        message = str(e)
        raise ProbeError(message, locked="lock" in message.lower())


def main():
    doc = json.load(sys.stdin)
    con = None
    try:
        con = connect(doc["path"])
        con.execute("begin transaction")
        answer = Probe(con, doc).run()
        con.execute("rollback")
    except ProbeError as e:
        print(json.dumps({"ods_probe_error": str(e), "locked": e.locked}), flush=True)
        return 3
    except Exception as e:  # noqa: BLE001 - a statement DuckDB refused: the call fails, as dbt's would
        print(json.dumps({"ods_probe_error": type(e).__name__ + ": " + str(e), "locked": False}), flush=True)
        return 3
    finally:
        if con is not None:
            con.close()
    print(json.dumps(answer), flush=True)
    return 0


sys.exit(main())
