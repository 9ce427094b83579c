#pragma once
// `dbt parse` for `ods state run` without writing a manifest nobody needs written again. Writing
// manifest.json is a third or more of a warm `dbt parse` of a project where nothing changed
// (measured in docs/compile-key.md, "Parsing"); dbt's partial parsing already knows from its
// own state, partial_parse.msgpack, that nothing changed. So in the ods dbt driver ODS parses with
// `--no-write-json` and reads the copy of the manifest it wrote after an earlier parse whose
// partial-parse state was byte for byte the one on disk now.
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "context.h"
#include "dbt_session.h"
#include "parse_fast_path.h"

namespace ods::cli {

struct ParsedManifest {
  std::filesystem::path manifest;       // the manifest.json of this parse, to read the project from
  bool reused = false;                  // it is the copy an earlier parse wrote (nothing was written now)
  bool fast_path = false;               // reused without starting dbt: nothing the parse reads changed
  std::string fast_path_declined = "";  // why dbt parsed when the fast path was considered ("" when taken or not)
  std::string inputs_digest = "";       // with fast_path: the digest of the parse's inputs it stood on
};

// The file beside the copy holding the SHA-256 of dbt's partial-parse state it was written with.
inline constexpr const char* kPartialParseDigestFile = "partial_parse.msgpack.sha256";

// Where the copy lives: <target-dir>/ods-parse (manifest.json, semantic_manifest.json, and
// partial_parse.msgpack.sha256, the SHA-256 of dbt's partial-parse state the copy was written
// with).
std::filesystem::path parse_copy_dir(const CommandContext& ctx);

// Parses the project through `session` (a step line first) and says where its manifest is.
//
// The fast path first (parse_fast_path.h, in the ods dbt driver and with `fast` enabled): when the
// digest of what dbt's parse reads equals the one recorded beside the copy (parse_inputs.sha256)
// and the copy and its partial-parse digest are there, the copy is the parse and no dbt process
// starts (a step line says so); otherwise a line says why not, and dbt parses as below. After a
// parse that left the copy standing or wrote it, the digest taken before dbt started is recorded
// beside it (atomically; removed first when the copy is rewritten), so a file edited while dbt
// parsed makes the next run parse again.
//
// In the ods dbt driver (session.runs_in_driver()): `dbt parse --no-write-json --target-path
// <target-dir>`, then the SHA-256 of <target-dir>/partial_parse.msgpack. After a parse dbt's
// kept manifest is exactly that file's content: dbt either found nothing changed and took the
// manifest from it, or parsed and wrote it. So when the digest equals the one recorded beside the
// copy, the copy is this parse's manifest (reused). Otherwise the driver writes the kept manifest
// into the copy's folder (the old digest removed first, the new one written after, atomically:
// a crash in between leaves no digest, so the next run writes again). Never reused with
// $DBT_PARTIAL_PARSE_FILE_PATH set (dbt then reads its state from another file), nor without
// partial_parse.msgpack.
// A dbt process per command, or a driver that declines to keep the manifest: a plain `dbt
// parse` (`target_path`: --target-path flags for it), <target-dir>/manifest.json.
//
// Returns the exit code after reporting on ctx.err: kExitFailed when dbt parse failed, was
// interrupted or the copy could not be written.
[[nodiscard]] std::expected<ParsedManifest, int> parse_project(const CommandContext& ctx, DbtSession& session,
                                                               const std::vector<std::string>& target_path,
                                                               const ParseFastPathSetting& fast);

}  // namespace ods::cli
