#include "json_access.h"

#include <algorithm>
#include <utility>

namespace ods::dbt::internal {

std::string Field::path() const {
  if (parent_ == nullptr) return root_path_;
  std::string out = parent_->path();
  if (index_ != kNoIndex) return out + "[" + std::to_string(index_) + "]";
  if (!out.empty()) out.push_back('.');
  out += key_;
  return out;
}

Error Field::error(std::string_view message) const {
  return Error{"invalid_artifact", std::string(file_) + ": " + path() + ": " + std::string(message)};
}

Result<Field> Field::member(std::string_view key) const {
  if (missing()) return Field(nullptr, file_, this, key, kNoIndex);
  if (!value_->is_object()) return std::unexpected(error("expected an object"));
  const auto it = value_->find(key);
  return Field(it == value_->end() ? nullptr : &*it, file_, this, key, kNoIndex);
}

Result<Field> Field::element(std::size_t i) const {
  if (missing() || !value_->is_array() || i >= value_->size()) return std::unexpected(error("expected an array"));
  return Field(&(*value_)[i], file_, this, {}, i);
}

Result<std::optional<std::string>> Field::string() const {
  if (missing()) return std::optional<std::string>{};
  if (!value_->is_string()) return std::unexpected(error("expected a string"));
  return std::optional<std::string>(value_->get_ref<const std::string&>());
}

Result<std::optional<bool>> Field::boolean() const {
  if (missing()) return std::optional<bool>{};
  if (!value_->is_boolean()) return std::unexpected(error("expected true or false"));
  return std::optional<bool>(value_->get<bool>());
}

Result<const Json*> Field::object() const {
  if (missing()) return static_cast<const Json*>(nullptr);
  if (!value_->is_object()) return std::unexpected(error("expected an object"));
  return value_;
}

Result<std::vector<std::string>> Field::strings() const {
  std::vector<std::string> out;
  if (missing()) return out;
  if (!value_->is_array()) return std::unexpected(error("expected an array of strings"));
  out.reserve(value_->size());
  for (const auto& item : *value_) {
    if (!item.is_string()) return std::unexpected(error("expected an array of strings"));
    out.push_back(item.get<std::string>());
  }
  return out;
}

namespace {

void write_canonical(const Json& value, std::string& out, std::span<const std::string_view> drop) {
  if (value.is_object()) {
    std::vector<const Json::object_t::value_type*> members;
    members.reserve(value.size());
    for (const auto& member : value.get_ref<const Json::object_t&>()) {
      if (std::find(drop.begin(), drop.end(), member.first) == drop.end()) members.push_back(&member);
    }
    std::stable_sort(members.begin(), members.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
    out.push_back('{');
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i > 0) out.push_back(',');
      append_json_string(members[i]->first, out);
      out.push_back(':');
      write_canonical(members[i]->second, out, {});
    }
    out.push_back('}');
  } else if (value.is_array()) {
    out.push_back('[');
    bool first = true;
    for (const auto& item : value) {
      if (!first) out.push_back(',');
      first = false;
      write_canonical(item, out, {});
    }
    out.push_back(']');
  } else {
    append_canonical_scalar(value, out);
  }
}

}  // namespace

std::string canonical_json(const Json& value, std::span<const std::string_view> drop) {
  std::string out;
  write_canonical(value, out, drop);
  return out;
}

}  // namespace ods::dbt::internal
