#pragma once
// The kept parse of a runner pod between runs (docs/kubernetes.md, "Nothing changed in a runner
// pod"; docs/adr/0034-kept-parse-of-runner-pods.md). A pod starts from a fresh checkout with no
// target/: `ods state run`'s parse fast path (parse_reuse.h) has nothing to stand on there. With a
// packages cache (--packages-cache, $ODS_PACKAGES_CACHE), the pod keeps what that fast path reads
// in one slot per scope, <cache>/kept-parse/<key>: dbt's partial_parse.msgpack and the parse's
// copy (ods-parse/: manifest.json, semantic_manifest.json when dbt wrote one, and the digests of
// the partial-parse state and of the parse's inputs), in an entry of the packages cache's kind
// (packages_cache.h: a list of every file's size and SHA-256, written last, renamed into place).
//
// Nothing here decides a reuse: the restored files are what parse_project finds in target/, and
// it takes the fast path only when the digest of this run's parse inputs equals the one recorded
// beside the copy (dbt's version is in that digest); otherwise dbt parses, partially, from the
// restored partial_parse.msgpack. A damaged entry is not restored (a warning says what differs).
// Saved only after the controller recorded the run as success or reused, so a failed run never
// replaces the kept parse of the last successful one.
#include <filesystem>
#include <string>

namespace ods::cli {

struct KeptParseSlot {
  std::filesystem::path root;  // <cache>/kept-parse
  std::string key;             // SHA-256 (hex) of a scheme line and the run's scope
  // What the entry restored recorded (kept_parse_files' two digests), "" when nothing was restored:
  // a run that stood on it has nothing new to save.
  std::string restored_inputs_digest;
  std::string restored_state_digest;
};

// The slot of `scope` (the controller's scope of the run) in packages cache `cache`.
KeptParseSlot kept_parse_slot(const std::filesystem::path& cache, const std::string& scope);

// Puts the slot's entry into `target_dir` (partial_parse.msgpack, ods-parse/) when the entry is
// there and whole and `target_dir` holds neither (a fresh pod). Never fails: returns the line
// saying what happened (restored, none kept, damaged and why, the target has a parse of its own,
// could not be written).
std::string restore_kept_parse(KeptParseSlot& slot, const std::filesystem::path& target_dir);

// Saves `target_dir`'s parse into the slot, replacing its entry, when the parse is whole (every
// file there, dbt's partial-parse state the one recorded beside the copy) and is not the one
// restored. Call only for a run the controller recorded as success or reused. Never fails:
// returns the line saying what happened.
std::string save_kept_parse(const KeptParseSlot& slot, const std::filesystem::path& target_dir);

}  // namespace ods::cli
