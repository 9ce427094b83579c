#include "body_json.h"

namespace ods::callback::detail {

FieldError protocol_error(const ods::json::FieldError& error) {
  if (error.is_missing()) return {error.path(), "is missing"};
  if (auto kind = error.expected()) return {error.path(), "must be " + std::string(ods::json::words(*kind))};
  return {error.path(), error.problem()};
}

json parse_body(std::string_view body) {
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded()) refuse("", "the body is not JSON");
  if (!doc.is_object()) refuse("", "the body must be a JSON object");
  const int version = integer_at(doc, "", "protocol");
  if (version != kProtocolVersion)
    refuse("protocol", "version " + std::to_string(version) + " is not spoken here (this side speaks " +
                           std::to_string(kProtocolVersion) + ")");
  return doc;
}

std::string splice_members(const json& document, const std::vector<RawMember>& raw) {
  std::string out = "{";
  for (const auto& [name, text] : raw) out += (out.size() > 1 ? "," : "") + json(name).dump() + ":" + text;
  const std::string rest = document.dump();  // "{...}" or "{}"
  if (rest.size() > 2) out += (out.size() > 1 ? "," : "") + rest.substr(1);
  return rest.size() > 2 ? out : out + "}";
}

}  // namespace ods::callback::detail
