#pragma once
// Test harness: searching what a run left behind (logs, statuses, artifacts, database rows) for
// known secrets (issue #16, "secrets never leak"). Each secret is looked for in every form someone
// could find or check a guess with: as is, percent-encoded (as in a URL), base64 and base64url at
// each of the three offsets it can start at inside an encoded text (the characters its bytes alone
// decide: found inside a longer encoded text, padded or not), the lower- and upper-case hex of its
// bytes, and the hex SHA-256 of it.
//
// A SecretSearch counts what it searched, so a suite can print how much it looked at.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ods::testing {

// The forms of `secret` listed above, each with a label ("base64 of <name>").
struct SecretForm {
  std::string label;
  std::string text;
};
std::vector<SecretForm> secret_forms(const std::string& name, const std::string& secret);

class SecretSearch {
 public:
  // `secrets`: name -> value (the name labels a finding; the value is never printed by this class).
  explicit SecretSearch(const std::vector<std::pair<std::string, std::string>>& secrets);

  // The label of the first form found in `text`, or "" when none is.
  std::string find(std::string_view text) const;
  // find() over `text`, counted; a gtest failure naming `where` and the form when one is found.
  void expect_clean(const std::string& where, std::string_view text);
  // expect_clean() over every regular file under `dir` (symlinks not followed) for which
  // `skip(path)` is false; the number of files searched.
  std::size_t expect_clean_tree(const std::filesystem::path& dir,
                                const std::function<bool(const std::filesystem::path&)>& skip = {});

  std::size_t texts_searched() const { return texts_; }
  std::size_t bytes_searched() const { return bytes_; }
  std::size_t forms() const { return forms_.size(); }

 private:
  std::vector<SecretForm> forms_;
  std::size_t texts_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace ods::testing
