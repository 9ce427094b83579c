#include "context.h"

#include <cstdlib>
#include <iostream>

#include "ods/planner/iso_time.h"
#include "ods/state/stores.h"

namespace ods::cli {

namespace fs = std::filesystem;

Environment process_environment() {
  Environment env;
  env.getenv = [](const std::string& name) {
    const char* v = std::getenv(name.c_str());
    return std::string(v ? v : "");
  };
  env.now = [] { return state::system_clock()(); };
  return env;
}

std::vector<FlagSpec> common_flags() {
  return {
      {"--project-dir", true, "the dbt project (default: .)"},
      {"--target-path", true, "where dbt wrote its artifacts (default: <project-dir>/target)"},
      {"--target", true, "the dbt target; names the state scope's environment"},
      {"--state", true, "state store URL (default: $ODS_STATE or sqlite:<project-dir>/.ods/state.db)"},
      {"--format", true, "text (default) or json"},
  };
}

Result<CommandContext> make_context(const ParsedArgs& args, std::ostream& out, std::ostream& err, Environment env) {
  CommandContext ctx;
  ctx.out = &out;
  ctx.err = &err;
  ctx.env = std::move(env);
  ctx.project_dir = args.get("--project-dir", ".");
  std::error_code ec;
  if (!fs::is_directory(ctx.project_dir, ec))
    return fail("usage", "--project-dir " + ctx.project_dir.string() + ": no such directory");
  ctx.target_dir = args.has("--target-path") ? fs::path(args.get("--target-path")) : ctx.project_dir / "target";
  if (ctx.target_dir.is_relative() && args.has("--target-path")) ctx.target_dir = ctx.project_dir / ctx.target_dir;
  ctx.target = args.get("--target");
  ctx.format = args.get("--format", "text");
  if (ctx.format != "text" && ctx.format != "json")
    return fail("usage", "--format must be text or json, not '" + ctx.format + "'");
  if (args.has("--state")) {
    ctx.state_url = args.get("--state");
  } else if (std::string v = ctx.env.getenv("ODS_STATE"); !v.empty()) {
    ctx.state_url = v;
  } else {
    ctx.state_url = "sqlite:" + (ctx.project_dir / ".ods" / "state.db").string();
  }
  return ctx;
}

Result<std::unique_ptr<contracts::StateStore>> open_store(const CommandContext& ctx, bool create) {
  state::OpenOptions options;
  options.create_if_missing = create;
  std::ostream* err = ctx.err;
  options.on_notice = [err](const std::string& notice) { *err << "ods: " << notice << "\n"; };
  auto store = state::open_state_store(ctx.state_url, state::system_clock(), options);
  if (!store) {
    Error e = store.error();
    e.message = "state store " + redact_url(ctx.state_url) + ": " + e.message;
    return std::unexpected(e);
  }
  return store;
}

std::string redact_url(const std::string& url) {
  std::string out = url;
  if (auto q = out.find('?'); q != std::string::npos) out = out.substr(0, q) + "?…";
  auto scheme = out.find("://");
  if (scheme != std::string::npos) {
    auto at = out.find('@', scheme + 3);
    auto slash = out.find('/', scheme + 3);
    if (at != std::string::npos && (slash == std::string::npos || at < slash))
      out = out.substr(0, scheme + 3) + "…@" + out.substr(at + 1);
  }
  return out;
}

}  // namespace ods::cli
