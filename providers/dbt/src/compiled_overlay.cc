#include "compiled_overlay.h"

#include <array>
#include <initializer_list>
#include <optional>

#include "json_stream.h"
#include "mapped_file.h"

namespace ods::dbt::internal {

namespace {

bool one_of(std::string_view key, std::initializer_list<std::string_view> keys) {
  for (const auto k : keys)
    if (k == key) return true;
  return false;
}

enum Section : std::size_t { version_section, nodes_section };
constexpr std::array<SectionSpec, 2> kSections = {
    {{"ods_compiled_nodes", SectionMode::whole}, {"nodes", SectionMode::entry_map}}};

class OverlaySink final : public StreamSink {
 public:
  explicit OverlaySink(std::string file) : file_(std::move(file)) {}

  Keep keep_key(std::size_t section, const EntrySoFar& partial, std::string_view key) const override {
    return section == nodes_section ? node_member_kept(partial, key) : Keep::build;
  }
  bool on_value(std::size_t /*section*/, Json&& version) override {
    if (version.is_number_integer() && version.get<long long>() == 1) return true;
    error_ = Error{"invalid_artifact", file_ + ": ods_compiled_nodes " + version.dump() +
                                           ": not a format this ods reads (1); the ods dbt driver and ods differ"};
    return false;
  }
  bool on_entry(std::size_t /*section*/, std::string&& id, Json&& /*entry*/, const RawMembers& raw) override {
    std::vector<std::pair<std::string, std::string>> owned;
    owned.reserve(raw.size());
    for (const auto& [name, text] : raw) owned.emplace_back(name, std::string(text));
    entries.emplace_back(std::move(id), std::move(owned));
    return true;
  }

  std::string file_;
  std::optional<Error> error_;
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> entries;
};

}  // namespace

Keep node_member_kept(const EntrySoFar& partial, std::string_view key) {
  // Nodes are read without a DOM: every member used is kept as text. dbt writes resource_type
  // early: a test needs only its definition (not its compiled SQL, which depends on the command
  // that wrote the manifest).
  const auto type = partial.find_raw("resource_type");
  if (type && *type == "\"test\"")
    return one_of(key, {"raw_code", "language", "test_metadata", "depends_on", "config"}) ? Keep::raw : Keep::skip;
  return one_of(key, {"resource_type", "name", "package_name", "database", "schema", "alias", "checksum", "config",
                      "columns", "relation_name", "raw_code", "compiled_code", "language", "depends_on", "contract",
                      "constraints", "test_metadata"})
             ? Keep::raw
             : Keep::skip;
}

Result<CompiledOverlay> CompiledOverlay::read(const std::filesystem::path& path) {
  ODS_TRY(const MappedFile file, MappedFile::open(path));
  CompiledOverlay overlay;
  overlay.file_ = path.string();
  OverlaySink sink(overlay.file_);
  auto streamed = stream_sections(file.text(), overlay.file_, kSections, sink);
  if (sink.error_) return std::unexpected(std::move(*sink.error_));
  if (!streamed) return std::unexpected(std::move(streamed.error()));
  for (const std::size_t required : {version_section, nodes_section})
    if (!(*streamed)[required])
      return fail("invalid_artifact", overlay.file_ + ": " + std::string(kSections[required].name) + ": missing");
  for (auto& [id, owned] : sink.entries) {
    Node& node = overlay.nodes_[id];
    node.owned = std::move(owned);
    for (const auto& [name, text] : node.owned) node.views.emplace_back(name, text);
  }
  return overlay;
}

const RawMembers* CompiledOverlay::find(const std::string& id) const {
  const auto it = nodes_.find(id);
  return it == nodes_.end() ? nullptr : &it->second.views;
}

std::vector<std::string> CompiledOverlay::ids() const {
  std::vector<std::string> out;
  out.reserve(nodes_.size());
  for (const auto& [id, node] : nodes_) out.push_back(id);
  return out;
}

}  // namespace ods::dbt::internal
