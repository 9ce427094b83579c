// Reads the chosen profile output and renders its scalars (ods/dbt/profile_output.h).
#include "ods/dbt/profile_output.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <optional>
#include <regex>
#include <vector>

namespace ods::dbt {

namespace {

using Rendered = std::expected<std::string, std::string>;

// Reasons never quote a value or the profile's text: a password may be in either.
constexpr const char* kOtherJinja =
    "Jinja ODS doesn't render (only env_var(), literals and the filters as_text, as_number, int, string)";

// The tokens of one `{{ ... }}` expression.
struct Token {
  enum class Kind { name, text, number, punct } kind;
  std::string value;
};

std::expected<std::vector<Token>, std::string> tokens_of(const std::string& expr) {
  std::vector<Token> out;
  for (std::size_t i = 0; i < expr.size();) {
    const unsigned char c = static_cast<unsigned char>(expr[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (c == '\'' || c == '"') {
      const auto end = expr.find(static_cast<char>(c), i + 1);
      if (end == std::string::npos) return std::unexpected("an unterminated string in a {{ }} expression");
      const std::string text = expr.substr(i + 1, end - i - 1);
      if (text.find('\\') != std::string::npos)
        return std::unexpected("a string with escapes, which ODS doesn't render");
      out.push_back({Token::Kind::text, text});
      i = end + 1;
    } else if (std::isdigit(c) || c == '-') {
      std::size_t end = i + 1;
      while (end < expr.size() && (std::isdigit(static_cast<unsigned char>(expr[end])) || expr[end] == '.')) ++end;
      out.push_back({Token::Kind::number, expr.substr(i, end - i)});
      i = end;
    } else if (std::isalpha(c) || c == '_') {
      std::size_t end = i + 1;
      while (end < expr.size() && (std::isalnum(static_cast<unsigned char>(expr[end])) || expr[end] == '_')) ++end;
      out.push_back({Token::Kind::name, expr.substr(i, end - i)});
      i = end;
    } else if (c == '(' || c == ')' || c == ',' || c == '|') {
      out.push_back({Token::Kind::punct, std::string(1, static_cast<char>(c))});
      ++i;
    } else {
      return std::unexpected(kOtherJinja);
    }
  }
  return out;
}

bool is_number(const std::string& text) {
  static const std::regex kNumber(R"(\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*)");
  return std::regex_match(text, kNumber);
}

// Jinja's int filter on a number (int(), else int(float())); nullopt for anything else (where
// Jinja would give 0, ODS leaves it to dbt).
std::optional<std::string> as_int(const std::string& text) {
  if (!is_number(text)) return std::nullopt;
  try {
    return std::to_string(static_cast<long long>(std::stod(text)));
  } catch (...) {
    return std::nullopt;
  }
}

Rendered apply_filter(const std::string& filter, const std::string& value) {
  if (filter == "as_text" || filter == "string") return value;
  if (filter == "as_number") {
    if (!is_number(value)) return std::unexpected("the value is not a number (as_number)");
    return value;
  }
  if (filter == "int") {
    auto whole = as_int(value);
    if (!whole) return std::unexpected("the value is not a number (int)");
    return *whole;
  }
  return std::unexpected("the filter '" + filter + "' is not one ODS renders");
}

Rendered render_expression(const std::string& expr, const ProfileGetenv& getenv) {
  auto tokens = tokens_of(expr);
  if (!tokens) return std::unexpected(tokens.error());
  const auto& t = *tokens;
  auto other = [&]() -> Rendered { return std::unexpected(kOtherJinja); };
  auto punct = [&](std::size_t i, const char* p) {
    return i < t.size() && t[i].kind == Token::Kind::punct && t[i].value == p;
  };
  std::size_t i = 0;
  std::string value;
  if (t.empty()) return other();
  if (t[0].kind == Token::Kind::text || t[0].kind == Token::Kind::number) {
    value = t[0].value;
    i = 1;
  } else if (t[0].kind == Token::Kind::name && t[0].value == "env_var" && punct(1, "(") && t.size() > 2 &&
             t[2].kind == Token::Kind::text) {
    const std::string name = t[2].value;
    std::optional<std::string> fallback;
    i = 3;
    if (punct(i, ",")) {
      if (i + 1 >= t.size() || t[i + 1].kind == Token::Kind::name || t[i + 1].kind == Token::Kind::punct)
        return other();
      fallback = t[i + 1].value;
      i += 2;
    }
    if (!punct(i, ")")) return other();
    ++i;
    value = getenv(name);
    if (value.empty()) {
      if (!fallback) return std::unexpected("environment variable '" + name + "' is not set and has no default");
      value = *fallback;
    }
  } else {
    return other();
  }
  while (i < t.size()) {
    if (!punct(i, "|") || i + 1 >= t.size() || t[i + 1].kind != Token::Kind::name) return other();
    if (punct(i + 2, "(")) return other();  // a filter with arguments
    auto filtered = apply_filter(t[i + 1].value, value);
    if (!filtered) return filtered;
    value = *filtered;
    i += 2;
  }
  return value;
}

}  // namespace

Rendered render_profile_value(const std::string& text, const ProfileGetenv& getenv) {
  if (text.find("{%") != std::string::npos || text.find("{#") != std::string::npos)
    return std::unexpected("Jinja statements or comments ({% %}, {# #}), which ODS doesn't render");
  std::string out;
  std::size_t at = 0;
  while (true) {
    const auto open = text.find("{{", at);
    if (open == std::string::npos) break;
    const auto close = text.find("}}", open + 2);
    if (close == std::string::npos) return std::unexpected("a '{{' without its '}}'");
    out += text.substr(at, open - at);
    auto value = render_expression(text.substr(open + 2, close - open - 2), getenv);
    if (!value) return value;
    out += *value;
    at = close + 2;
  }
  out += text.substr(at);
  return out;
}

std::expected<ProfileOutput, std::string> read_profile_output(const TargetChoice& choice, const ProfileGetenv& getenv) {
  if (choice.name.empty())
    return std::unexpected("the target is not known before dbt runs" +
                           (choice.unknown_why.empty() ? std::string() : " (" + choice.unknown_why + ")"));
  if (choice.profiles_file.empty()) return std::unexpected("no profiles.yml was read");
  YAML::Node root;
  try {
    root = YAML::LoadFile(choice.profiles_file.string());
  } catch (const YAML::Exception&) {
    return std::unexpected(choice.profiles_file.string() + " could not be read");
  }
  const YAML::Node profile = root.IsMap() ? root[choice.profile] : YAML::Node();
  const YAML::Node outputs = profile && profile.IsMap() ? profile["outputs"] : YAML::Node();
  const YAML::Node output = outputs && outputs.IsMap() ? outputs[choice.name] : YAML::Node();
  if (!output || !output.IsMap())
    return std::unexpected(choice.profiles_file.string() + " has no output '" + choice.name + "' in profile '" +
                           choice.profile + "'");
  ProfileOutput out;
  out.target = choice.name;
  for (const auto& field : output) {
    if (!field.first.IsScalar()) continue;
    if (field.second.IsMap() || field.second.IsSequence()) out.structured.push_back(field.first.Scalar());
    if (!field.second.IsScalar()) continue;
    auto value = render_profile_value(field.second.Scalar(), getenv);
    if (!value) return std::unexpected("field '" + field.first.Scalar() + "': " + value.error());
    out.fields[field.first.Scalar()] = *value;
  }
  return out;
}

}  // namespace ods::dbt
