#include "packages_cache.h"

#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>

#include "file_bytes.h"
#include "ods/base/sha256.h"

namespace ods::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kEntryList[] = "entry.json";
constexpr char kTemporaryPrefix[] = ".tmp-";
constexpr char kTrashPrefix[] = ".trash-";
constexpr auto kStaleAfter = std::chrono::hours(24);

// pid and random bits: unique among the pods sharing a cache folder.
std::string unique_suffix() {
  std::random_device random;
  std::ostringstream out;
  out << ::getpid() << '-' << std::hex << random() << random();
  return out.str();
}

// A relative path of an entry's list that stays inside the entry: no root, no "..", no ".".
bool is_inner_path(const std::string& text) {
  const fs::path path(text);
  if (text.empty() || path.is_absolute() || path.has_root_name()) return false;
  for (const auto& part : path) {
    const std::string p = part.string();
    if (p.empty() || p == "." || p == "..") return false;
  }
  return true;
}

// Checks entry `entry` (its list, then every file it lists) and, when `copy_to` is given, copies
// the listed folders and files there (made fresh). nullopt when the entry is whole; else what is
// wrong with it. Errors ("io"): writing under `copy_to` failed.
Result<std::optional<std::string>> check_entry(const fs::path& entry, const std::string& key, const fs::path* copy_to,
                                               const CacheEntryKind& kind) {
  const std::string folder(kind.folder);
  const auto list_text = read_bytes(entry / kEntryList);
  if (!list_text) return std::optional<std::string>(std::string(kEntryList) + " is missing or unreadable");
  const json list = json::parse(*list_text, nullptr, false);
  if (list.is_discarded() || !list.is_object())
    return std::optional<std::string>(std::string(kEntryList) + " is not a whole JSON document");
  if (list.value("scheme", "") != kind.scheme || list.value("key", "") != key || !list.contains("files") ||
      !list["files"].is_array() || !list.contains("dirs") || !list["dirs"].is_array())
    return std::optional<std::string>(std::string(kEntryList) + " is not the list of this entry");
  std::error_code ec;
  if (copy_to != nullptr && !fs::create_directory(*copy_to, ec))
    return fail("io", "cannot create " + copy_to->string() + (ec ? ": " + ec.message() : ": it exists"));
  for (const json& dir : list["dirs"]) {
    if (!dir.is_string() || !is_inner_path(dir.get<std::string>()))
      return std::optional<std::string>(std::string(kEntryList) + " lists a folder outside the entry");
    if (copy_to != nullptr) {
      fs::create_directories(*copy_to / dir.get<std::string>(), ec);
      if (ec) return fail("io", "cannot create " + (*copy_to / dir.get<std::string>()).string() + ": " + ec.message());
    }
  }
  for (const json& file : list["files"]) {
    const bool well_formed = file.is_object() && file.contains("path") && file["path"].is_string() &&
                             file.contains("size") && file["size"].is_number_unsigned() && file.contains("sha256") &&
                             file["sha256"].is_string() && file.contains("mode") && file["mode"].is_number_unsigned();
    if (!well_formed || !is_inner_path(file["path"].get<std::string>()))
      return std::optional<std::string>(std::string(kEntryList) + " lists a file it does not describe");
    const std::string path = file["path"].get<std::string>();
    const auto bytes = read_bytes(entry / folder / path);
    if (!bytes) return std::optional<std::string>(folder + "/" + path + " is missing");
    if (bytes->size() != file["size"].get<std::uint64_t>() || sha256_hex(*bytes) != file["sha256"].get<std::string>())
      return std::optional<std::string>(folder + "/" + path + " does not match its digest");
    if (copy_to != nullptr) {
      const fs::path target = *copy_to / path;
      fs::create_directories(target.parent_path(), ec);
      if (ec) return fail("io", "cannot create " + target.parent_path().string() + ": " + ec.message());
      const auto mode = static_cast<fs::perms>(file["mode"].get<unsigned>()) & fs::perms::all;
      if (auto written = write_bytes(target, *bytes, mode); !written) return std::unexpected(written.error());
    }
  }
  return std::optional<std::string>();
}

// Copies the tree `from` into `to` (made fresh), filling `list`'s "files" and "dirs". nullopt on
// success; the reason when the tree cannot be cached (a link, a special file). Errors ("io").
Result<std::optional<std::string>> copy_listing(const fs::path& from, const fs::path& to, json& list,
                                                const std::string& folder) {
  std::error_code ec;
  if (!fs::create_directory(to, ec)) return fail("io", "cannot create " + to.string() + ": " + ec.message());
  list["files"] = json::array();
  list["dirs"] = json::array();
  for (auto it = fs::recursive_directory_iterator(from, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path path = it->path();
    const std::string rel = path.lexically_relative(from).generic_string();
    const auto status = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_symlink(status))
      return std::optional<std::string>(folder + "/" + rel +
                                        " is a link (a local package: its files live in the project)");
    if (fs::is_directory(status)) {
      if (!fs::create_directory(to / rel, ec)) return fail("io", "cannot create " + (to / rel).string());
      list["dirs"].push_back(rel);
    } else if (fs::is_regular_file(status)) {
      const auto bytes = read_bytes(path);
      if (!bytes) return fail("io", "cannot read " + path.string());
      if (auto written = write_bytes(to / rel, *bytes, status.permissions()); !written)
        return std::unexpected(written.error());
      list["files"].push_back({{"path", rel},
                               {"size", bytes->size()},
                               {"sha256", sha256_hex(*bytes)},
                               {"mode", static_cast<unsigned>(status.permissions() & fs::perms::all)}});
    } else {
      return std::optional<std::string>(folder + "/" + rel + " is not a file or a folder");
    }
  }
  if (ec) return fail("io", "cannot list " + from.string() + ": " + ec.message());
  return std::optional<std::string>();
}

// Temporary and trash folders older than kStaleAfter: what pods that died mid-save left.
void remove_stale_leftovers(const fs::path& root) {
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (auto it = fs::directory_iterator(root, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(kTemporaryPrefix) && !name.starts_with(kTrashPrefix)) continue;
    std::error_code time_ec;
    const auto written = fs::last_write_time(it->path(), time_ec);
    if (!time_ec && now - written > kStaleAfter) {
      std::error_code remove_ec;
      fs::remove_all(it->path(), remove_ec);
    }
  }
}

}  // namespace

Result<std::string> packages_cache_key(const fs::path& project_dir, const std::string& declared,
                                       const std::string& dbt_version) {
  std::string text = std::string(kPackagesEntry.scheme) + "\ndbt " + dbt_version + "\n";
  for (const std::string& name : {declared, std::string("package-lock.yml")}) {
    std::error_code ec;
    if (name != declared && !fs::exists(project_dir / name, ec)) continue;
    const auto bytes = read_bytes(project_dir / name);
    if (!bytes) return fail("io", "cannot read " + (project_dir / name).string());
    text += name + " " + std::to_string(bytes->size()) + "\n" + *bytes + "\n";
  }
  return sha256_hex(text);
}

Result<PackagesRestore> restore_packages(const fs::path& root, const std::string& key, const fs::path& packages_dir,
                                         const CacheEntryKind& kind) {
  const fs::path entry = root / key;
  std::error_code ec;
  if (!fs::is_directory(entry, ec)) return PackagesRestore{RestoreOutcome::absent, ""};
  const fs::path staging =
      packages_dir.parent_path() / ("." + packages_dir.filename().string() + ".ods-restoring-" + unique_suffix());
  auto checked = check_entry(entry, key, &staging, kind);
  if (!checked || *checked) fs::remove_all(staging, ec);
  if (!checked) return std::unexpected(checked.error());
  if (*checked) return PackagesRestore{RestoreOutcome::damaged, **checked};
  if (fs::exists(packages_dir, ec)) fs::remove(packages_dir, ec);  // empty (install_packages' condition)
  if (!ec) fs::rename(staging, packages_dir, ec);
  if (ec) {
    std::error_code cleanup;
    fs::remove_all(staging, cleanup);
    return fail("io", "cannot put the restored packages at " + packages_dir.string() + ": " + ec.message());
  }
  fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);  // "used": a hint for pruning only
  return PackagesRestore{RestoreOutcome::restored, ""};
}

Result<PackagesSave> save_packages(const fs::path& root, const std::string& key, const fs::path& packages_dir,
                                   const CacheEntryKind& kind) {
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) return fail("io", "cannot create " + root.string() + ": " + ec.message());
  remove_stale_leftovers(root);
  const fs::path temporary = root / (kTemporaryPrefix + key.substr(0, 12) + "-" + unique_suffix());
  auto remove_temporary = [&] {
    std::error_code cleanup;
    fs::remove_all(temporary, cleanup);
  };
  if (!fs::create_directory(temporary, ec)) return fail("io", "cannot create " + temporary.string());
  json list = {{"scheme", kind.scheme}, {"key", key}};
  const std::string folder(kind.folder);
  auto copied = copy_listing(packages_dir, temporary / folder, list, folder);
  if (!copied || *copied) remove_temporary();
  if (!copied) return std::unexpected(copied.error());
  if (*copied) return PackagesSave{SaveOutcome::not_cacheable, **copied};
  if (auto written =
          write_bytes(temporary / kEntryList, list.dump(1),
                      fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
      !written) {
    remove_temporary();
    return std::unexpected(written.error());
  }

  const fs::path entry = root / key;
  fs::rename(temporary, entry, ec);
  if (!ec) return PackagesSave{SaveOutcome::saved, ""};
  // An entry is there: another pod's whole one (replaced when `kind` says so), or a damaged one
  // this replaces.
  auto whole = check_entry(entry, key, nullptr, kind);
  if (whole && !*whole && !kind.replace_whole) {
    remove_temporary();
    return PackagesSave{SaveOutcome::already_saved, ""};
  }
  const fs::path trash = root / (kTrashPrefix + key.substr(0, 12) + "-" + unique_suffix());
  std::error_code trash_ec;
  fs::rename(entry, trash, trash_ec);
  ec.clear();
  fs::rename(temporary, entry, ec);
  fs::remove_all(trash, trash_ec);
  if (!ec) return PackagesSave{SaveOutcome::saved, ""};
  remove_temporary();  // another pod put its entry there between the two renames
  auto theirs = check_entry(entry, key, nullptr, kind);
  if (theirs && !*theirs) return PackagesSave{SaveOutcome::already_saved, ""};
  return fail("io", "cannot put the entry at " + entry.string() + ": " + ec.message());
}

}  // namespace ods::cli
