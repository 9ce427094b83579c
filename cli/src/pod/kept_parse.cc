#include "kept_parse.h"

#include <unistd.h>

#include <array>
#include <system_error>

#include "file_bytes.h"
#include "ods/base/sha256.h"
#include "packages_cache.h"
#include "parse_reuse.h"

namespace ods::cli {

namespace {

namespace fs = std::filesystem;

constexpr CacheEntryKind kKeptParseEntry{"ods-kept-parse/1", "parse", true};
constexpr const char* kState = "partial_parse.msgpack";  // dbt's partial-parse state, in target/
constexpr const char* kCopy = "ods-parse";               // the parse's copy (parse_reuse.h), in target/

// The copy's files the fast path reads; semantic_manifest.json is kept when dbt wrote one.
constexpr std::array kRequiredCopyFiles{"manifest.json", kPartialParseDigestFile, kParseInputsDigestFile};
constexpr const char* kOptionalCopyFile = "semantic_manifest.json";

std::string short_key(const KeptParseSlot& slot) { return slot.key.substr(0, 12); }

std::string text_of(const fs::path& file) {
  auto bytes = read_bytes(file);
  return bytes ? *bytes : std::string();
}

// What is missing of a parse in `dir` (kState and kCopy/...), "" when it is whole.
std::string missing_of(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_regular_file(dir / kState, ec)) return kState;
  for (const char* file : kRequiredCopyFiles)
    if (!fs::is_regular_file(dir / kCopy / file, ec)) return std::string(kCopy) + "/" + file;
  return "";
}

// A folder beside `target_dir`'s files for staging an entry, unique to this process.
fs::path staging_in(const fs::path& target_dir, const std::string& what) {
  return target_dir / (".ods-kept-parse-" + what + "-" + std::to_string(::getpid()));
}

// Moves the restored `staged` parse into `target_dir`. "" when done, else why not.
std::string move_into(const fs::path& staged, const fs::path& target_dir) {
  std::error_code ec;
  fs::rename(staged / kState, target_dir / kState, ec);
  if (!ec) fs::rename(staged / kCopy, target_dir / kCopy, ec);
  if (!ec) return "";
  std::error_code cleanup;
  fs::remove(target_dir / kState, cleanup);
  fs::remove_all(target_dir / kCopy, cleanup);
  return ec.message();
}

// Copies `target_dir`'s parse into `staged` (made fresh). "" when done, else why not.
std::string copy_parse(const fs::path& target_dir, const fs::path& staged) {
  std::error_code ec;
  fs::create_directories(staged / kCopy, ec);
  if (!ec) fs::copy_file(target_dir / kState, staged / kState, ec);
  for (const char* file : kRequiredCopyFiles)
    if (!ec) fs::copy_file(target_dir / kCopy / file, staged / kCopy / file, ec);
  std::error_code absent;  // set when the optional file is not there
  if (!ec && fs::is_regular_file(target_dir / kCopy / kOptionalCopyFile, absent))
    fs::copy_file(target_dir / kCopy / kOptionalCopyFile, staged / kCopy / kOptionalCopyFile, ec);
  return ec ? ec.message() : "";
}

}  // namespace

KeptParseSlot kept_parse_slot(const fs::path& cache, const std::string& scope) {
  return KeptParseSlot{cache / "kept-parse", sha256_hex(std::string(kKeptParseEntry.scheme) + "\n" + scope), "", ""};
}

std::string restore_kept_parse(KeptParseSlot& slot, const fs::path& target_dir) {
  std::error_code ec;
  if (fs::exists(target_dir / kState, ec) || fs::exists(target_dir / kCopy, ec))
    return "kept parse not restored: " + target_dir.string() + " holds a parse of its own";
  fs::create_directories(target_dir, ec);
  const fs::path staged = staging_in(target_dir, "restore");
  fs::remove_all(staged, ec);
  auto restored = restore_packages(slot.root, slot.key, staged, kKeptParseEntry);
  if (!restored) return "warning: kept parse not restored: " + restored.error().message;
  if (restored->outcome == RestoreOutcome::absent)
    return "no kept parse for this scope in the cache (" + short_key(slot) + "): dbt parses";
  if (restored->outcome == RestoreOutcome::damaged)
    return "warning: the kept parse " + short_key(slot) + " in the cache is damaged (" + restored->why +
           "): not restored, dbt parses";
  std::string why = missing_of(staged);
  if (why.empty()) why = move_into(staged, target_dir);
  if (why.empty()) {
    slot.restored_inputs_digest = text_of(target_dir / kCopy / kParseInputsDigestFile);
    slot.restored_state_digest = text_of(target_dir / kCopy / kPartialParseDigestFile);
  }
  fs::remove_all(staged, ec);
  if (!why.empty()) return "warning: the kept parse " + short_key(slot) + " not restored (" + why + "): dbt parses";
  return "kept parse restored from the cache (" + short_key(slot) + ")";
}

std::string save_kept_parse(const KeptParseSlot& slot, const fs::path& target_dir) {
  if (const std::string missing = missing_of(target_dir); !missing.empty())
    return "kept parse not saved: this run left no " + missing + " in " + target_dir.string();
  auto state = read_bytes(target_dir / kState);
  const std::string state_digest = text_of(target_dir / kCopy / kPartialParseDigestFile);
  if (!state || state_digest != sha256_hex(*state) + "\n")
    return "kept parse not saved: dbt's partial-parse state is not the one the parse's copy was written with";
  const std::string inputs_digest = text_of(target_dir / kCopy / kParseInputsDigestFile);
  if (inputs_digest == slot.restored_inputs_digest && state_digest == slot.restored_state_digest)
    return "the kept parse " + short_key(slot) + " stood: not saved again";
  const fs::path staged = staging_in(target_dir, "save");
  std::error_code ec;
  fs::remove_all(staged, ec);
  std::string why = copy_parse(target_dir, staged);
  if (why.empty()) {
    auto saved = save_packages(slot.root, slot.key, staged, kKeptParseEntry);
    if (!saved)
      why = saved.error().message;
    else if (saved->outcome == SaveOutcome::not_cacheable)
      why = saved->why;
  }
  fs::remove_all(staged, ec);
  if (!why.empty()) return "warning: kept parse not saved to the cache: " + why;
  return "kept parse saved to the cache (" + short_key(slot) + ")";
}

}  // namespace ods::cli
