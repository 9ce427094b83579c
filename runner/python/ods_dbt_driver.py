# The ods dbt driver: one Python process that imports dbt once and runs the dbt commands
# ods sends it, so an `ods state run` pays dbt's start-up and project parse once instead of
# once per command (compile, the probe's show, build). ods embeds this file and starts it as
# `<dbt's python> -c <this source>` (runner/src/process/dbt_driver.h).
#
# Protocol (one JSON document per line):
#   stdin, from ods:  {"args": [dbt arguments, e.g. "--log-format", "json", "compile", ...],
#                      "cwd": "<dbt project dir>", "env": {"NAME": "value", ...}}
#   stdout, to ods:   dbt's own JSON log events while the command runs, then
#                     {"ods_driver": {"exit_code": N}} when it has ended.
# Exit codes are dbt's own: 0 success, 1 the command ran and failed (a model error), 2 dbt
# raised an error (or a usage error). End of stdin: the driver exits 0.
#
# The manifest the first command parsed is kept and handed to the next commands
# (dbtRunner(manifest=...)) as long as the arguments that decide the parse (--project-dir,
# --profiles-dir, --target, --vars) are the same, with what the previous command compiled
# into its nodes reset (forget_compilation); its metadata.invocation_id is moved to each
# command's own invocation id (and generated_at to the command's time), so the manifest.json a command writes belongs to that command
# as the run_results.json beside it does.
#
# Ctrl-C: ods sends SIGINT to the driver's process group. dbt stops the command as it does
# when run alone (cancels its queries, reports keyboard_interrupt); the driver then reports
# exit code 2 and exits, so nothing runs after an interruption.
import json
import os
import sys
from datetime import datetime, timezone

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


def report(exit_code):
    sys.stdout.write(json.dumps({"ods_driver": {"exit_code": exit_code}}) + "\n")
    sys.stdout.flush()


def main():
    from click.exceptions import BadOptionUsage, NoSuchOption, UsageError
    from click.exceptions import Exit as ClickExit
    from dbt.cli import requires
    from dbt.cli.main import cli
    from dbt_common.invocation import get_invocation_id, get_invocation_started_at

    state = {"manifest": None, "key": None}

    def own_invocation(_event):
        # Called for every event of the command, the first ones before any artifact is written.
        manifest = state["manifest"]
        if manifest is not None and manifest.metadata.invocation_id != get_invocation_id():
            manifest.metadata.invocation_id = get_invocation_id()
            manifest.metadata.invocation_started_at = get_invocation_started_at()
            manifest.metadata.generated_at = datetime.now(timezone.utc).replace(tzinfo=None)

    def run(args):
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
            sys.stderr.write("dbt: usage error: " + e.format_message() + "\n")
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
            sys.stderr.write("ods dbt driver: " + type(e).__name__ + ": " + str(e) + "\n")
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
