#include "run_manifest.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <system_error>

#include "file_bytes.h"
#include "parse_reuse.h"

namespace ods::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kNoteFormat = "ods_run_manifest";

// What tells a rewritten file from the one noted: its size and modification time (the file
// clock's ticks). nullopt when the file cannot be read.
std::optional<std::pair<std::uintmax_t, std::int64_t>> size_and_time(const fs::path& file) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) return std::nullopt;
  const auto time = fs::last_write_time(file, ec);
  if (ec) return std::nullopt;
  return std::make_pair(size, static_cast<std::int64_t>(time.time_since_epoch().count()));
}

// A file in the note: relative to the target folder when inside it (a project copied or moved
// with its target/ keeps a note of its own files), else absolute.
std::string as_noted(const CommandContext& ctx, const fs::path& file) {
  const fs::path target = fs::absolute(ctx.target_dir).lexically_normal();
  const fs::path relative = fs::absolute(file).lexically_normal().lexically_relative(target);
  const bool inside = !relative.empty() && *relative.begin() != "..";
  return inside ? relative.generic_string() : fs::absolute(file).lexically_normal().string();
}

fs::path from_note(const CommandContext& ctx, const std::string& noted) {
  const fs::path file(noted);
  return file.is_absolute() ? file : fs::absolute(ctx.target_dir / file).lexically_normal();
}

Result<void> forget_run_manifest(const CommandContext& ctx) {
  std::error_code ec;
  fs::remove(run_manifest_note(ctx), ec);
  if (ec) return fail("io", "Cannot remove " + run_manifest_note(ctx).string() + ": " + ec.message() + ".");
  return {};
}

}  // namespace

fs::path run_manifest_note(const CommandContext& ctx) { return parse_copy_dir(ctx) / "run_manifest.json"; }

Result<void> note_run_manifest(const CommandContext& ctx, DbtSession& session, const fs::path& manifest,
                               const std::string& invocation_id) {
  ODS_TRY_VOID(forget_run_manifest(ctx));
  const fs::path compiled = fs::absolute(parse_copy_dir(ctx) / "run_compiled_nodes.json").lexically_normal();
  ODS_TRY_VOID(session.write_compiled_nodes(compiled));
  const fs::path read = fs::absolute(manifest).lexically_normal();
  const auto stamp = size_and_time(read);
  if (!stamp) return fail("io", "Cannot read the size and time of " + read.string() + ".");
  const json note{{kNoteFormat, 1},
                  {"manifest", as_noted(ctx, read)},
                  {"manifest_size", stamp->first},
                  {"manifest_time", stamp->second},
                  {"compiled_nodes", as_noted(ctx, compiled)},
                  {"invocation_id", invocation_id}};
  const fs::path file = run_manifest_note(ctx);
  const fs::path tmp = fs::path(file).concat(".tmp");
  ODS_TRY_VOID(
      write_bytes(tmp, note.dump() + "\n",
                  fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read));
  std::error_code ec;
  fs::rename(tmp, file, ec);
  if (ec) return fail("io", "Cannot rename " + tmp.string() + " to " + file.string() + ": " + ec.message() + ".");
  return {};
}

Result<std::optional<RunManifest>> last_run_manifest(const CommandContext& ctx) {
  const fs::path file = run_manifest_note(ctx);
  std::error_code ec;
  const auto noted = fs::last_write_time(file, ec);
  if (ec) return std::nullopt;  // no note
  const auto written = fs::last_write_time(ctx.target_dir / "manifest.json", ec);
  if (!ec && written >= noted) return std::nullopt;  // a later dbt command wrote target/manifest.json
  const auto bytes = read_bytes(file);
  const json note = bytes ? json::parse(*bytes, nullptr, false) : json();
  const auto text = [&](const char* key) {
    return note.is_object() && note.contains(key) && note[key].is_string() ? note[key].get<std::string>()
                                                                           : std::string();
  };
  const auto number = [&](const char* key) -> std::optional<std::int64_t> {
    if (!note.is_object() || !note.contains(key) || !note[key].is_number_integer()) return std::nullopt;
    return note[key].get<std::int64_t>();
  };
  RunManifest out{text("manifest"), text("compiled_nodes"), text("invocation_id")};
  if (!out.manifest.empty()) out.manifest = from_note(ctx, out.manifest.string());
  if (!out.compiled_nodes.empty()) out.compiled_nodes = from_note(ctx, out.compiled_nodes.string());
  const auto size = number("manifest_size");
  const auto time = number("manifest_time");
  if (!note.is_object() || !note.contains(kNoteFormat) || note[kNoteFormat] != 1 || out.manifest.empty() ||
      out.compiled_nodes.empty() || !size || !time)
    return fail("invalid_artifact", file.string() +
                                        ": not the note of the manifest an ods state run read; remove it, or run "
                                        "`dbt compile` to write target/manifest.json");
  const auto now = size_and_time(out.manifest);
  if (!now)
    return fail("invalid_artifact", file.string() + " names " + out.manifest.string() +
                                        ", which is gone; run `ods state run` or `dbt compile` again");
  if (static_cast<std::int64_t>(now->first) != *size || now->second != *time) {
    out.compiled_nodes.clear();  // rewritten by a later parse: the build's compiled nodes may be of other code
    out.invocation_id.clear();
    return out;
  }
  if (!fs::exists(out.compiled_nodes))
    return fail("invalid_artifact", file.string() + " names " + out.compiled_nodes.string() +
                                        ", which is gone; run `ods state run` or `dbt compile` again");
  return out;
}

}  // namespace ods::cli
