"""Dropping a closed pull request's environment (ods_ci.py's command drop-pr; docs/ci.md, "When the
pull request closes").

`ods state pr` builds a pull request's models into its own target (pr-target), whose schemas carry
the request's number (profiles.yml: schema "{{ env_var('DBT_PR_SCHEMA') }}"); nothing else drops
them. drop() asks dbt where each relation of the project goes under the pull request's target and
under production's (`dbt ls` of the models, seeds and snapshots, their database and schema: the
profile and generate_schema_name decide, as for the build), and drops every schema of the first
that is not one of the second, through dbt itself (adapter.drop_schema in one `dbt show --inline`
call), so it works on every warehouse dbt does. A schema both targets name is production's: it is
never dropped, and the step fails saying so (the pull request's target would build into
production's schema). Python 3 standard library only.
"""
import json
import subprocess

RELATION_TYPES = ("model", "seed", "snapshot")


class DropResult:
    """What drop() did: the schemas dropped, those left because production uses them, a dbt failure."""

    def __init__(self, pr_target):
        self.pr_target = pr_target
        self.dropped = []
        self.shared = []
        self.failure = ""

    def exit_code(self):
        return 1 if self.failure or self.shared else 0

    def errors(self):
        out = []
        if self.failure:
            out.append(f"ods: drop-pr: {self.failure}")
        for database, schema in self.shared:
            out.append(f"ods: drop-pr: {database}.{schema} is production's schema too, so it was not dropped: "
                       f"pr-target {self.pr_target} must build into schemas of its own")
        return out

    def markdown(self):
        lines = [f"**ODS drop-pr** (target {self.pr_target})\n"]
        if self.failure:
            lines.append(f"Nothing was dropped: {self.failure}\n")
        elif self.dropped:
            lines.append("Dropped the pull request's schemas:\n")
            lines += [f"- `{d}.{s}`" for d, s in self.dropped]
            lines.append("")
        else:
            lines.append("No schema of the pull request's own to drop.\n")
        if self.shared:
            lines.append("**Not dropped, production's schemas too** (the pull request's target builds into them):\n")
            lines += [f"- `{d}.{s}`" for d, s in self.shared]
            lines.append("")
        return "\n".join(lines) + "\n"


def _run(argv, environment, cwd):
    try:
        done = subprocess.run(argv, env=environment, cwd=cwd, capture_output=True, text=True)
    except OSError as e:
        return 1, "", str(e)
    return done.returncode, done.stdout, done.stderr


def _tail(text, lines=15):
    return "\n".join(text.strip().splitlines()[-lines:])


def schemas_of(dbt, dbt_args, target, environment, cwd):
    """{(database, schema)} of the project's relations under `target` (dbt ls), or a str: why not."""
    argv = dbt + ["--quiet", "ls"] + dbt_args + ["--output", "json", "--output-keys", "database schema"]
    for kind in RELATION_TYPES:
        argv += ["--resource-type", kind]
    if target:
        argv += ["--target", target]
    code, out, err = _run(argv, environment, cwd)
    if code != 0:
        return f"dbt ls --target {target or '(the default)'} ended with exit status {code}:\n{_tail(out + err)}"
    found = set()
    for line in out.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            node = json.loads(line)
        except ValueError:
            continue
        if node.get("schema"):
            found.add((node.get("database") or "", node["schema"]))
    return found


def drop(dbt, dbt_args, prod_target, pr_target, environment, cwd):
    """Drops the schemas `pr_target` builds into that `prod_target` does not. Returns a DropResult."""
    result = DropResult(pr_target)
    if prod_target == pr_target:
        result.failure = f"pr-target names production's target '{pr_target}'"
        return result
    pr = schemas_of(dbt, dbt_args, pr_target, environment, cwd)
    prod = schemas_of(dbt, dbt_args, prod_target, environment, cwd) if not isinstance(pr, str) else set()
    for answer in (pr, prod):
        if isinstance(answer, str):
            result.failure = answer
            return result
    result.shared = sorted(pr & prod)
    own = sorted(pr - prod)
    if not own:
        return result
    # adapter.drop_schema drops `schema` in `database` with what it holds (dbt's drop_schema macro:
    # cascade), and commits; the names are JSON string literals, which Jinja reads as they are.
    pairs = ", ".join(f"[{json.dumps(d)}, {json.dumps(s)}]" for d, s in own)
    program = ("{% for pair in [" + pairs + "] %}"
               "{% do adapter.drop_schema(api.Relation.create(database=pair[0] or none, schema=pair[1])) %}"
               "{% endfor %}select 1 as dropped")
    code, out, err = _run(dbt + ["--quiet", "show"] + dbt_args + ["--target", pr_target, "--inline", program],
                          environment, cwd)
    if code != 0:
        result.failure = f"dbt show (dropping {len(own)} schemas) ended with exit status {code}:\n{_tail(out + err)}"
        return result
    result.dropped = own
    return result
