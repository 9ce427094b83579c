#!/usr/bin/env python3
"""Runs a composite GitHub Action (action.yml) the way a GitHub runner does, for the CI-step tests.

  action_harness.py ACTION_YML RUN_SPEC_JSON RESULT_JSON

RUN_SPEC_JSON: {"inputs": {...}, "env": {...runner/job environment, GITHUB_*...},
                "event": {...payload written to GITHUB_EVENT_PATH...}, "workspace": DIR, "temp": DIR}

What it does as the runner does (docs.github.com, "Metadata syntax", "Workflow commands",
"Contexts", "Expressions"):
  - inputs: the given ones, else each input's `default` (itself an expression); an unknown input
    is an error here (GitHub warns);
  - each step in order: `if` (default success(); always(), success(), failure(), ==, !=, &&, ||, !,
    parentheses, 'strings', inputs.*, steps.<id>.outputs.*, github.*, env.*, runner.*), `env` and
    `with` values with ${{ }} expressions, `run` with `shell: bash` as
    `bash --noprofile --norc -eo pipefail FILE` (python: `python FILE`) in the workspace, with a fresh
    GITHUB_OUTPUT file per step (name=value and name<<DELIM lines parsed into steps.<id>.outputs),
    GITHUB_STEP_SUMMARY per step (appended to the job summary), GITHUB_ACTION_PATH, GITHUB_ENV;
  - a failed step skips the later steps whose `if` does not ask for always()/failure();
  - `uses:` steps are recorded with their evaluated `with`; with "cache_dir" in the spec,
    actions/cache/restore and actions/cache/save are also carried out as GitHub does them, in that
    folder: restore takes the exact key, else the newest entry whose key starts with the first
    restore-key that has one, among the caches this run may read (saved on its own branch, the
    pull request's base branch or the default branch), and outputs cache-hit, cache-primary-key,
    cache-matched-key; save refuses a key that exists (caches are immutable) or a missing path.
    Other `uses:` steps do nothing;
  - the action's `outputs:` evaluated at the end.
RESULT_JSON: {"conclusion": "success"|"failure", "steps": [{"name","id","conclusion","outputs",
  "log"}], "uses": [{"uses","with","restored"|"saved"}], "outputs": {...}, "summary": "...", "log": "..."}
Expressions inside `run:` bodies are refused (inputs go through env:).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml  # PyYAML, from the project's .venv (dbt-core depends on it)

EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)


class Refused(Exception):
    pass


def tokenize(text):
    tokens, i = [], 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith(("==", "!=", "&&", "||"), i):
            tokens.append(text[i:i + 2])
            i += 2
        elif c in "()!.,[]":
            tokens.append(c)
            i += 1
        elif c == "'":
            j, value = i + 1, ""
            while True:
                if j >= len(text):
                    raise Refused(f"unterminated string in expression: {text}")
                if text[j] == "'" and text[j + 1:j + 2] == "'":
                    value, j = value + "'", j + 2
                elif text[j] == "'":
                    break
                else:
                    value, j = value + text[j], j + 1
            tokens.append(("str", value))
            i = j + 1
        else:
            m = re.match(r"[A-Za-z_][A-Za-z0-9_-]*|\d+(\.\d+)?", text[i:])
            if not m:
                raise Refused(f"cannot read expression at '{text[i:]}'")
            tokens.append(("name", m.group(0)))
            i += len(m.group(0))
    return tokens


class Evaluator:
    """GitHub's expression language, the part an action uses."""

    def __init__(self, contexts, status):
        self.contexts, self.status = contexts, status

    def evaluate(self, text):
        self.tokens, self.pos = tokenize(text), 0
        value = self.or_expr()
        if self.pos != len(self.tokens):
            raise Refused(f"unexpected '{self.tokens[self.pos]}' in expression: {text}")
        return value

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self, expected=None):
        token = self.peek()
        if expected is not None and token != expected:
            raise Refused(f"expected '{expected}', found '{token}'")
        self.pos += 1
        return token

    def or_expr(self):
        left = self.and_expr()
        while self.peek() == "||":
            self.take()
            right = self.and_expr()
            left = left if truthy(left) else right
        return left

    def and_expr(self):
        left = self.cmp_expr()
        while self.peek() == "&&":
            self.take()
            right = self.cmp_expr()
            left = right if truthy(left) else left
        return left

    def cmp_expr(self):
        left = self.unary()
        while self.peek() in ("==", "!="):
            op = self.take()
            right = self.unary()
            same = loose_equal(left, right)
            left = same if op == "==" else not same
        return left

    def unary(self):
        if self.peek() == "!":
            self.take()
            return not truthy(self.unary())
        if self.peek() == "(":
            self.take()
            value = self.or_expr()
            self.take(")")
            return value
        token = self.take()
        if isinstance(token, tuple) and token[0] == "str":
            return token[1]
        if not (isinstance(token, tuple) and token[0] == "name"):
            raise Refused(f"unexpected '{token}'")
        name = token[1]
        if self.peek() == "(":
            self.take()
            self.take(")")
            functions = {"always": True, "success": self.status == "success", "failure": self.status == "failure",
                         "cancelled": False}
            if name not in functions:
                raise Refused(f"function {name}() is not supported by the harness")
            return functions[name]
        if name in ("true", "false"):
            return name == "true"
        if name == "null":
            return None
        if re.fullmatch(r"\d+(\.\d+)?", name):
            return float(name)
        value = self.contexts.get(name)
        while self.peek() == ".":
            self.take()
            key = self.take()[1]
            value = value.get(key) if isinstance(value, dict) else None
        return value


def truthy(value):
    return value not in (None, False, 0, 0.0, "")


def loose_equal(a, b):
    if isinstance(a, str) and isinstance(b, str):
        return a.lower() == b.lower()
    if a is None:
        a = ""
    if b is None:
        b = ""
    return str(a).lower() == str(b).lower() if isinstance(a, str) or isinstance(b, str) else a == b


def to_text(value):
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)


def substitute(text, evaluator):
    if not isinstance(text, str):
        return to_text(text)
    return EXPR.sub(lambda m: to_text(evaluator.evaluate(m.group(1))), text)


def condition(text, evaluator):
    if text is None:
        return evaluator.status == "success"
    text = str(text).strip()
    m = EXPR.fullmatch(text)
    expression = m.group(1) if m else text
    if not re.search(r"\b(always|success|failure|cancelled)\(\)", expression):
        expression = f"success() && ({expression})"
    return truthy(evaluator.evaluate(expression))


def parse_output_file(path):
    outputs, lines, i = {}, open(path, encoding="utf-8").read().split("\n"), 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value, i = [], i + 1
            while i < len(lines) and lines[i] != delimiter:
                value.append(lines[i])
                i += 1
            if i >= len(lines):
                raise Refused(f"GITHUB_OUTPUT: no closing delimiter {delimiter} for {name}")
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
        i += 1
    return outputs


def cache_branches(runner_env, event):
    """The branches whose caches this run may restore: its own, the base branch, the default."""
    own = runner_env.get("GITHUB_HEAD_REF") or runner_env.get("GITHUB_REF_NAME", "")
    default = (event.get("repository") or {}).get("default_branch", "")
    return [b for b in (own, runner_env.get("GITHUB_BASE_REF", ""), default) if b]


def cache_step(uses, with_, spec, runner_env):
    """actions/cache/restore or save in spec["cache_dir"]; returns (outputs, note for the record)."""
    root = spec["cache_dir"]
    index_path = os.path.join(root, "index.json")
    index = json.load(open(index_path)) if os.path.exists(index_path) else []
    paths = [p for p in with_.get("path", "").split("\n") if p.strip()]
    key = with_.get("key", "")
    if uses.startswith("actions/cache/save@"):
        sources = [os.path.join(spec["workspace"], p) for p in paths]
        if any(entry["key"] == key for entry in index) or not all(os.path.exists(p) for p in sources):
            return {}, {"saved": False}
        folder = os.path.join(root, str(len(index)))
        for p, source in zip(paths, sources):
            shutil.copytree(source, os.path.join(folder, p), symlinks=True)
        branch = runner_env.get("GITHUB_HEAD_REF") or runner_env.get("GITHUB_REF_NAME", "")
        index.append({"key": key, "folder": folder, "branch": branch})
        json.dump(index, open(index_path, "w"))
        return {}, {"saved": True}
    readable = [e for e in index if e["branch"] in cache_branches(runner_env, spec.get("event", {}))]
    match = next((e for e in readable if e["key"] == key), None)
    for prefix in [] if match else [r for r in with_.get("restore-keys", "").split("\n") if r.strip()]:
        candidates = [e for e in readable if e["key"].startswith(prefix.strip())]
        if candidates:
            match = candidates[-1]
            break
    if match is None:
        return {"cache-hit": "", "cache-primary-key": key, "cache-matched-key": ""}, {"restored": ""}
    for p in paths:
        target = os.path.join(spec["workspace"], p)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(os.path.join(match["folder"], p), target, symlinks=True)
    return ({"cache-hit": "true" if match["key"] == key else "false", "cache-primary-key": key,
             "cache-matched-key": match["key"]}, {"restored": match["key"]})


def run_action(action_path, spec):
    action = yaml.safe_load(open(action_path, encoding="utf-8"))
    if (action.get("runs") or {}).get("using") != "composite":
        raise Refused("not a composite action")
    workspace, temp = spec["workspace"], spec["temp"]
    event_path = os.path.join(temp, "event.json")
    json.dump(spec.get("event", {}), open(event_path, "w"))
    runner_env = dict(spec.get("env", {}))
    runner_env.update({"GITHUB_EVENT_PATH": event_path, "GITHUB_WORKSPACE": workspace, "RUNNER_TEMP": temp,
                       "GITHUB_ACTION_PATH": os.path.dirname(os.path.abspath(action_path)),
                       "GITHUB_ACTIONS": "true", "CI": "true", "RUNNER_OS": "Linux"})
    github = {k[len("GITHUB_"):].lower(): v for k, v in runner_env.items() if k.startswith("GITHUB_")}
    github.update({"event": spec.get("event", {}), "token": spec.get("github_token", ""),
                   "action_path": runner_env["GITHUB_ACTION_PATH"]})
    contexts = {"github": github, "env": runner_env, "runner": {"os": "Linux", "temp": temp}, "steps": {}}
    evaluator = Evaluator(contexts, "success")

    declared = action.get("inputs") or {}
    unknown = set(spec.get("inputs", {})) - set(declared)
    if unknown:
        raise Refused(f"inputs not declared by the action: {sorted(unknown)}")
    contexts["inputs"] = {}
    for name, meta in declared.items():
        given = spec.get("inputs", {}).get(name)
        contexts["inputs"][name] = to_text(given) if given is not None else substitute((meta or {}).get("default", ""), evaluator)

    result = {"steps": [], "uses": [], "log": "", "summary": ""}
    for index, step in enumerate(action["runs"]["steps"]):
        record = {"name": step.get("name", f"step {index}"), "id": step.get("id", ""), "outputs": {}, "log": ""}
        result["steps"].append(record)
        if not condition(step.get("if"), evaluator):
            record["conclusion"] = "skipped"
            continue
        step_env = dict(runner_env)
        for k, v in (step.get("env") or {}).items():
            step_env[k] = substitute(v, evaluator)
        if "uses" in step:
            with_ = {k: substitute(v, evaluator) for k, v in (step.get("with") or {}).items()}
            entry = {"uses": step["uses"], "name": record["name"], "with": with_}
            if spec.get("cache_dir") and step["uses"].startswith(("actions/cache/restore@", "actions/cache/save@")):
                record["outputs"], note = cache_step(step["uses"], with_, spec, runner_env)
                entry.update(note)
            result["uses"].append(entry)
            record["conclusion"] = "success"
            if record["id"]:
                contexts["steps"][record["id"]] = {"outputs": record["outputs"], "conclusion": "success"}
            continue
        body = step["run"]
        if EXPR.search(body):
            raise Refused(f"step '{record['name']}' pastes an expression into its script; pass it through env:")
        shell = step.get("shell")
        commands = {"bash": ["bash", "--noprofile", "--norc", "-eo", "pipefail"], "python": ["python3"],
                    "sh": ["sh", "-e"]}
        if shell not in commands:
            raise Refused(f"step '{record['name']}': shell '{shell}' is not supported here (composite run steps need one)")
        files = {}
        for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE"):
            fd, files[name] = tempfile.mkstemp(prefix=name.lower() + "-", dir=temp)
            os.close(fd)
            step_env[name] = files[name]
        fd, script = tempfile.mkstemp(suffix=".sh" if shell != "python" else ".py", dir=temp)
        with os.fdopen(fd, "w") as f:
            f.write(body)
        cwd = os.path.join(workspace, step.get("working-directory", "")) if step.get("working-directory") else workspace
        done = subprocess.run(commands[shell] + [script], cwd=cwd, env=step_env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        record["log"] = done.stdout
        result["log"] += f"##[group]{record['name']}\n{done.stdout}##[endgroup]\n"
        record["outputs"] = parse_output_file(files["GITHUB_OUTPUT"])
        result["summary"] += open(files["GITHUB_STEP_SUMMARY"], encoding="utf-8").read()
        record["conclusion"] = "success" if done.returncode == 0 else "failure"
        record["exit_code"] = done.returncode
        if record["id"]:
            contexts["steps"][record["id"]] = {"outputs": record["outputs"], "conclusion": record["conclusion"]}
        if done.returncode != 0:
            evaluator.status = "failure"
    result["conclusion"] = evaluator.status
    result["outputs"] = {name: substitute((meta or {}).get("value", ""), evaluator)
                         for name, meta in (action.get("outputs") or {}).items()}
    return result


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    spec = json.load(open(argv[1], encoding="utf-8"))
    try:
        result = run_action(argv[0], spec)
    except Refused as e:
        result = {"conclusion": "refused", "error": str(e)}
    json.dump(result, open(argv[2], "w", encoding="utf-8"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
