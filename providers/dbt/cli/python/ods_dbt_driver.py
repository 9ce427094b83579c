# The ods dbt driver: one Python process that imports dbt once and runs the dbt commands
# ods sends it, so an `ods state run` pays dbt's start-up and project parse once instead of
# once per command (compile, the probe's show, build). ods embeds this file and starts it as
# `<dbt's python> -c <this source>` (providers/dbt/cli/include/ods/dbt/cli/dbt_driver.h).
#
# Protocol (one JSON document per line):
#   stdin, from ods:  {"args": [dbt arguments, e.g. "--log-format", "json", "compile", ...],
#                      "cwd": "<dbt project dir>", "env": {"NAME": "value", ...}}
#   stdout, to ods:   dbt's own JSON log events while the command runs, then
#                     {"ods_driver": {"exit_code": N}} when it has ended.
# Exit codes are dbt's own: 0 success, 1 the command ran and failed (a model error), 2 dbt
# raised an error (or a usage error). What the driver itself says of a command (a usage error,
# an exception dbt did not handle, a refused request) is an error-level event on stdout
# (error_event), before the end line. End of stdin: the driver exits 0.
#
# Before reading any request the driver says what the running dbt offers, in one line:
#   {"ods_driver": {"dbt_version": "1.9.11", "manifest_schema": "<url>", "keep_manifest": true}}
#   {"ods_driver": {..., "keep_manifest": false, "why": "<what is missing>"}}  -> ods runs one
#       dbt process per command instead, and the driver exits;
#   {"ods_driver": {..., "refused": "<message>"}}  -> a dbt ODS does not support (older than
#       1.8, or a manifest schema newer than v12); the driver exits 2.
# The checks (inspect_dbt) look at what the driver touches: dbt's CLI entry points, dbtRunner's
# manifest hand-over, the manifest metadata it rewrites and the compiled-state fields of a
# node it resets. A field of CompiledNode it does not know could be compiled state it would
# not reset, so an unknown one means: do not keep the manifest.
#
# The manifest the first command parsed is kept and handed to the next commands
# (dbtRunner(manifest=...)) as long as the arguments that decide the parse (--project-dir,
# --profiles-dir, --target, --vars) are the same, with what the previous command compiled
# into its nodes reset (forget_compilation); its metadata.invocation_id is moved to each
# command's own invocation id (and generated_at to the command's time), so the manifest.json a command writes belongs to that command
# as the run_results.json beside it does.
#
# One request is not a dbt command: {"args": [..., "ods-write-manifest", "<dir>", ...]} writes
# the manifest the driver keeps, as the last command left it, into <dir> (manifest.json and
# semantic_manifest.json, with dbt's own write_manifest, as `dbt parse` writes them) and runs
# nothing; the other arguments (--log-format json, the session's shared flags) are ignored. Exit
# code 0, or 2 when it keeps no manifest or the write fails, with the reason as an error-level
# event in dbt's JSON log shape on stdout ({"info": {"name": "OdsDriverError", "level": "error",
# "msg": ...}}): stdout keeps its order with the end line, where stderr, read apart, may not. ods sends it after
# `dbt parse --no-write-json`, so a parse that changed nothing writes no manifest at all
# (cli/src/shared/parse_reuse.h).
#
# A command whose arguments hold "ods-no-manifest" (removed before dbt sees them) runs with dbt's
# manifest writer off: dbt.task.runnable's write_manifest is a no-op for that command, so it
# writes run_results.json (and its other artifacts) as usual but neither manifest.json nor
# semantic_manifest.json. ods sends it with a compile or a build that runs on the kept parse, whose
# manifest it does not read (writing the whole manifest is most of a `dbt compile --select` of a
# few nodes in a large project). A dbt whose runnable has no such writer (none of 1.8-1.12) writes
# the manifest as usual: slower, never wrong.
#
# One more request is not a dbt command: {"args": [..., "ods-write-compiled", "<file>", ...]}
# writes the nodes of the kept manifest that the last command compiled (compiled true: the
# selected nodes, the ephemeral models inlined into them, their tests), each as manifest.json
# writes it (the node's resource, to_dict(omit_none=False, context={"artifact": True}), without
# config_call_dict as the manifest's writer drops it), into <file> as
# {"ods_compiled_nodes": 1, "invocation_id": "<the compile's>", "nodes": {"<unique id>": {...}}},
# written to <file>.tmp and renamed. Exit code 0, or 2 with the reason (as ods-write-manifest).
#
# Every command links the project's graph; the driver gives dbt's cycle check and graph
# summary the same answers faster (link_graphs_faster, below).
#
# Ctrl-C: ods sends SIGINT to the driver's process group. dbt stops the command as it does
# when run alone (cancels its queries, reports keyboard_interrupt); the driver then reports
# exit code 2 and exits, so nothing runs after an interruption.
import json
import os
import re
import sys
from datetime import datetime, timezone

SUPPORTED = "dbt-core 1.8 to 1.12 (manifest schema v12)"
# CompiledNode's fields beyond ParsedNode's in dbt-core 1.8-1.12: compiled state the driver
# resets (forget_compilation), and parse-time fields a compile does not change (`functions`,
# the functions a node calls, like refs and sources, is new in 1.11).
COMPILED_STATE = {"compiled", "compiled_code", "compiled_path", "extra_ctes_injected", "extra_ctes", "_pre_injected_sql"}
PARSED_FIELDS = {"contract", "depends_on", "functions", "language", "metrics", "refs", "sources"}

WRITE_MANIFEST = "ods-write-manifest"
WRITE_COMPILED = "ods-write-compiled"
NO_MANIFEST = "ods-no-manifest"
PARSE_FLAGS = ("--project-dir", "--profiles-dir", "--target", "--vars", "-t")


def parse_key(args):
    key = []
    for i, arg in enumerate(args):
        for flag in PARSE_FLAGS:
            if arg == flag and i + 1 < len(args):
                key.append((flag, args[i + 1]))
            elif arg.startswith(flag + "="):
                key.append((flag, arg[len(flag) + 1 :]))
    return tuple(sorted(key))


def forget_compilation(manifest):
    # dbt's compiler expects freshly parsed nodes: a node marked compiled with its CTEs
    # injected is not injected again, so an ephemeral model's CTE would be missing from the
    # next command's SQL. Put every node back as the parse left it, and drop the inline node
    # of a `show --inline` / `compile --inline` that failed before dbt removed it itself.
    from dbt.contracts.graph.nodes import CompiledNode, SqlNode

    for unique_id in [i for i, node in manifest.nodes.items() if isinstance(node, SqlNode)]:
        manifest.nodes.pop(unique_id)
    for node in manifest.nodes.values():
        if isinstance(node, CompiledNode):
            node.compiled = False
            node.compiled_code = None
            node.compiled_path = None
            node.extra_ctes_injected = False
            node.extra_ctes = []
            node._pre_injected_sql = None


def inspect_dbt():
    # What the running dbt offers -> the driver's first line (see the top of this file).
    hello = {}
    try:
        from dbt.version import __version__ as version
    except Exception as e:
        return {"refused": "cannot read the version of dbt-core (dbt.version): " + repr(e) + "; ODS supports " + SUPPORTED}
    hello["dbt_version"] = version
    m = re.match(r"(\d+)\.(\d+)", version)
    if not m or (int(m.group(1)), int(m.group(2))) < (1, 8):
        hello["refused"] = "dbt-core " + version + " is not supported: ODS supports " + SUPPORTED
        return hello
    try:
        from dbt.artifacts.schemas.manifest import WritableManifest

        hello["manifest_schema"] = str(WritableManifest.dbt_schema_version)
    except Exception as e:
        hello["keep_manifest"], hello["why"] = False, "cannot read its manifest schema version: " + repr(e)
        return hello
    s = re.search(r"/manifest/v(\d+)\.json$", hello["manifest_schema"])
    if not s or int(s.group(1)) > 12:
        hello["refused"] = ("dbt-core " + version + " writes manifest schema " + hello["manifest_schema"] +
                            ", which is not supported: ODS supports " + SUPPORTED)
        return hello
    why = missing_features()
    hello["keep_manifest"] = not why
    if why:
        hello["why"] = why
    return hello


def missing_features():
    # "" when everything the driver uses is there and looks as it expects; else what is not.
    import dataclasses
    import inspect

    try:
        from click.exceptions import BadOptionUsage, NoSuchOption, UsageError  # noqa: F401
        from dbt.cli import requires
        from dbt.cli.main import cli, dbtRunner
        from dbt.contracts.graph.manifest import ManifestMetadata
        from dbt.contracts.graph.nodes import CompiledNode, ParsedNode, SqlNode  # noqa: F401
        from dbt.parser.manifest import write_manifest  # noqa: F401
        from dbt_common.invocation import get_invocation_id  # noqa: F401
    except Exception as e:
        return "an interface the driver uses is missing: " + type(e).__name__ + ": " + str(e)
    for name in ("ResultExit", "ExceptionExit"):
        if not hasattr(requires, name):
            return "dbt.cli.requires has no " + name
    if not hasattr(cli, "make_context") or not hasattr(cli, "invoke"):
        return "dbt's cli is not a click command"
    if not {"manifest", "callbacks"} <= set(inspect.signature(dbtRunner.__init__).parameters):
        return "dbtRunner takes no manifest or callbacks"
    try:
        if 'ctx.obj.get("manifest") is None' not in inspect.getsource(requires):
            return "dbt.cli.requires does not take a manifest handed over in ctx.obj"
    except (OSError, TypeError) as e:
        return "cannot read dbt.cli.requires: " + str(e)
    metadata = {f.name for f in dataclasses.fields(ManifestMetadata)}
    if not {"invocation_id", "generated_at"} <= metadata:
        return "the manifest metadata has no invocation_id or generated_at"
    compiled = {f.name for f in dataclasses.fields(CompiledNode)} - {f.name for f in dataclasses.fields(ParsedNode)}
    unknown = sorted(compiled - COMPILED_STATE - PARSED_FIELDS)
    if unknown:
        return "compiled nodes have fields the driver does not know how to reset: " + ", ".join(unknown)
    if not COMPILED_STATE - {"_pre_injected_sql"} <= compiled:
        return "compiled nodes lack " + ", ".join(sorted(COMPILED_STATE - {"_pre_injected_sql"} - compiled))
    return ""


# dbt links the whole project's graph on every command (Compiler.compile): a cycle check
# (networkx's find_cycle, an edge walk in Python) and a diagnostic summary written to
# target/graph_summary.json, which serializes every node to a dict to read its resource type.
# At 5,000 nodes they took 0.17 s and 0.13 s of every command (of a 0.67 s `dbt show` on the
# kept manifest). The driver gives both the same answers faster: the edge walk runs only when
# networkx's topological check says there is a cycle, and the summary reads each node's
# resource_type itself. Only over the texts dbt-core 1.8-1.12 ship (SHA-256 of their source);
# any other text is left as it is.
LINKER_TEXTS = {
    "find_cycles": "d0bcc9d2b3af95d4b74c68b653dcca5c3a3a3d5a9036af0aca8239b088f79ef5",
    "get_graph_summary": "b5d2f0dcd6611496f79f97ad0d43c69e464fd5859c9d0071cb711ddccad6bce0",
}


def link_graphs_faster():
    # Returns the names of the Linker methods replaced (empty when dbt's texts are not the known ones).
    import hashlib
    import inspect

    try:
        import networkx as nx
        from dbt.compilation import Linker
    except Exception:
        return []
    replaced = []
    for name, digest in LINKER_TEXTS.items():
        try:
            text = inspect.getsource(getattr(Linker, name))
        except (AttributeError, OSError, TypeError):
            continue
        if hashlib.sha256(text.encode()).hexdigest() != digest:
            continue
        if name == "find_cycles":
            walk = Linker.find_cycles

            def find_cycles(self, walk=walk):
                return None if nx.is_directed_acyclic_graph(self.graph) else walk(self)

            Linker.find_cycles = find_cycles
        else:

            def get_graph_summary(self, manifest):
                index = {name: i for i, name in enumerate(self.graph)}
                summary = {}
                for name, i in index.items():
                    kind = manifest.expect(name).resource_type
                    summary[i] = {"name": name, "type": getattr(kind, "value", kind)}
                    successors = [index[n] for n in self.graph.successors(name)]
                    if successors:
                        summary[i]["succ"] = successors
                return summary

            Linker.get_graph_summary = get_graph_summary
        replaced.append(name)
    return replaced


def manifest_writer_off():
    # A context manager that makes dbt.task.runnable's write_manifest a no-op while it is open;
    # one that changes nothing when runnable has no write_manifest of dbt's.
    import contextlib

    @contextlib.contextmanager
    def off():
        try:
            import dbt.parser.manifest as parser
            from dbt.task import runnable
        except Exception:
            yield
            return
        if getattr(runnable, "write_manifest", None) is not getattr(parser, "write_manifest", False):
            yield
            return
        writer = runnable.write_manifest
        runnable.write_manifest = lambda *_args, **_kwargs: None
        try:
            yield
        finally:
            runnable.write_manifest = writer

    return off()


def compiled_nodes(manifest):
    # {unique id: the node as manifest.json writes it} for every node the last command compiled.
    out = {}
    for unique_id, node in manifest.nodes.items():
        if not getattr(node, "compiled", False):
            continue
        resource = node.to_resource() if hasattr(node, "to_resource") else node
        written = resource.to_dict(omit_none=False, context={"artifact": True})
        written.pop("config_call_dict", None)
        out[unique_id] = written
    return out


def error_event(message):
    # What the driver itself has to say of a command: an error-level event in dbt's JSON log
    # shape on stdout, so it reaches ods in order, before the command's end line (stderr is read
    # apart and could arrive after it).
    info = {"name": "OdsDriverError", "level": "error", "msg": message}
    sys.stdout.write(json.dumps({"info": info, "data": {}}) + "\n")


def report(exit_code):
    sys.stdout.write(json.dumps({"ods_driver": {"exit_code": exit_code}}) + "\n")
    sys.stdout.flush()


def main():
    hello = inspect_dbt()
    sys.stdout.write(json.dumps({"ods_driver": hello}) + "\n")
    sys.stdout.flush()
    if "refused" in hello:
        return 2
    if not hello.get("keep_manifest"):
        return 0
    import dataclasses

    from click.exceptions import BadOptionUsage, NoSuchOption, UsageError
    from click.exceptions import Exit as ClickExit
    from dbt.cli import requires
    from dbt.cli.main import cli
    from dbt.contracts.graph.manifest import ManifestMetadata
    from dbt_common.invocation import get_invocation_id

    link_graphs_faster()
    has_started_at = "invocation_started_at" in {f.name for f in dataclasses.fields(ManifestMetadata)}
    if has_started_at:
        from dbt_common.invocation import get_invocation_started_at

    state = {"manifest": None, "key": None}

    def own_invocation(_event):
        # Called for every event of the command, the first ones before any artifact is written.
        manifest = state["manifest"]
        if manifest is not None and manifest.metadata.invocation_id != get_invocation_id():
            manifest.metadata.invocation_id = get_invocation_id()
            if has_started_at:  # dbt-core 1.10 and later
                manifest.metadata.invocation_started_at = get_invocation_started_at()
            manifest.metadata.generated_at = datetime.now(timezone.utc).replace(tzinfo=None)

    def refuse(message):
        error_event("ods dbt driver: " + message)
        return 2, False

    def write_kept(args):
        at = args.index(WRITE_MANIFEST) + 1
        if at >= len(args) or not args[at] or args[at].startswith("-"):
            return refuse(WRITE_MANIFEST + " needs the directory to write to")
        if state["manifest"] is None:
            return refuse("no parsed manifest to write: no command has parsed the project")
        from dbt.parser.manifest import write_manifest

        try:
            os.makedirs(args[at], exist_ok=True)
            write_manifest(state["manifest"], args[at])
        except OSError as e:
            return refuse("cannot write the manifest into " + args[at] + ": " + str(e))
        return 0, False

    def write_compiled(args):
        at = args.index(WRITE_COMPILED) + 1
        if at >= len(args) or not args[at] or args[at].startswith("-"):
            return refuse(WRITE_COMPILED + " needs the file to write to")
        if state["manifest"] is None:
            return refuse("no parsed manifest: no command has parsed the project")
        path = args[at]
        try:
            document = {"ods_compiled_nodes": 1, "invocation_id": state["manifest"].metadata.invocation_id,
                        "nodes": compiled_nodes(state["manifest"])}
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            with open(path + ".tmp", "w") as f:
                json.dump(document, f)
            os.replace(path + ".tmp", path)
        except Exception as e:
            return refuse("cannot write the compiled nodes into " + path + ": " + type(e).__name__ + ": " + str(e))
        return 0, False

    def run(args):
        if WRITE_MANIFEST in args:
            return write_kept(args)
        if WRITE_COMPILED in args:
            return write_compiled(args)
        if NO_MANIFEST in args:
            with manifest_writer_off():
                return run_dbt([a for a in args if a != NO_MANIFEST])
        return run_dbt(args)

    def run_dbt(args):
        key = parse_key(args)
        if key != state["key"]:
            state["manifest"], state["key"] = None, key
        if state["manifest"] is not None:
            forget_compilation(state["manifest"])
        ctx = None
        interrupted = False
        try:
            ctx = cli.make_context(cli.name, list(args))
            ctx.obj = {"manifest": state["manifest"], "callbacks": [own_invocation], "dbt_runner_command_args": list(args)}
            _, success = cli.invoke(ctx)
            code = 0 if success else 1
        except requires.ResultExit:
            code = 1
        except requires.ExceptionExit as e:
            code = 2
            interrupted = isinstance(e.exception, KeyboardInterrupt)
        except (BadOptionUsage, NoSuchOption, UsageError) as e:
            error_event("dbt: usage error: " + e.format_message())
            code = 2
        except ClickExit as e:
            code = e.exit_code
        except KeyboardInterrupt:
            code, interrupted = 2, True
        if ctx is not None and ctx.obj and ctx.obj.get("manifest") is not None:
            state["manifest"] = ctx.obj["manifest"]
        return code, interrupted

    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if request.get("cwd"):
            os.chdir(request["cwd"])
        for name, value in request.get("env", {}).items():
            os.environ[name] = value
        try:
            code, interrupted = run(request["args"])
        except KeyboardInterrupt:
            code, interrupted = 2, True
        except BaseException as e:  # dbt's own handler reports most errors; this is the rest
            error_event("ods dbt driver: " + type(e).__name__ + ": " + str(e))
            code, interrupted = 2, False
        sys.stderr.flush()
        report(code)
        if interrupted:
            return 2
    return 0


if __name__ == "__main__":
    try:
        code = main()
    except KeyboardInterrupt:
        code = 130
    # Every command has cleaned up after itself (dbt closes its connections at the end of an
    # invocation); skip the interpreter's teardown of dbt's modules, which ods would wait for.
    # multiprocessing's exit hook still runs: it unlinks the named semaphores dbt created
    # (/dev/shm/sem.mp-*), which would otherwise be left behind.
    try:
        from multiprocessing import util

        util._exit_function()
    except Exception:
        pass
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
