#include "git_credentials.h"

#include <fstream>
#include <optional>
#include <sstream>

namespace ods::cli {
namespace {

namespace fs = std::filesystem;

// The file's content without a trailing newline; nullopt when it does not exist.
Result<std::optional<std::string>> secret_file(const fs::path& dir, const std::string& key) {
  std::error_code ec;
  if (!fs::exists(dir / key, ec)) return std::optional<std::string>();
  std::ifstream in(dir / key, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) return fail("git_credentials", "cannot read the key " + key + " of the git credentials in " + dir.string());
  std::string value = text.str();
  while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.pop_back();
  return std::optional<std::string>(std::move(value));
}

bool is_ssh_url(const std::string& url) { return url.starts_with("ssh://") || url.starts_with("git@"); }

// A single-quoted shell word (GIT_SSH_COMMAND is run by the shell).
std::string shell_quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

Result<GitCredentials> ssh_credentials(const fs::path& dir, const fs::path& scratch) {
  auto identity = secret_file(dir, "identity");
  if (!identity) return std::unexpected(identity.error());
  auto known_hosts = secret_file(dir, "known_hosts");
  if (!known_hosts) return std::unexpected(known_hosts.error());
  if (!*identity) {
    return fail("git_credentials", "the git credentials in " + dir.string() +
                                       " have no key identity (the SSH private key) for an ssh:// or git@ URL");
  }
  if (!*known_hosts || (*known_hosts)->empty()) {
    return fail("git_credentials", "the git credentials in " + dir.string() +
                                       " have an SSH identity but no known_hosts: the server's host key must be "
                                       "given (ssh-keyscan HOST), it is never accepted unchecked");
  }
  std::error_code ec;
  const fs::path copy_dir = scratch / "ods-git-ssh";
  fs::remove_all(copy_dir, ec);
  fs::create_directories(copy_dir, ec);
  if (ec) return fail("git_credentials", "cannot create " + copy_dir.string() + " for the SSH key: " + ec.message());
  fs::permissions(copy_dir, fs::perms::owner_all, ec);
  const fs::path key = copy_dir / "identity";
  {
    std::ofstream out(key, std::ios::binary);
    out << **identity << "\n";
    if (!out) return fail("git_credentials", "cannot write the SSH key copy " + key.string());
  }
  fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write, ec);
  const std::string command =
      "ssh -i " + shell_quoted(key.string()) + " -o IdentitiesOnly=yes -o BatchMode=yes" +
      " -o StrictHostKeyChecking=yes -o UserKnownHostsFile=" + shell_quoted((dir / "known_hosts").string());
  return GitCredentials{{{"GIT_TERMINAL_PROMPT", "0"}, {"GIT_SSH_COMMAND", command}}, copy_dir};
}

Result<GitCredentials> http_credentials(const fs::path& dir, const std::string& url) {
  auto bearer = secret_file(dir, "bearerToken");
  if (!bearer) return std::unexpected(bearer.error());
  auto password = secret_file(dir, "password");
  if (!password) return std::unexpected(password.error());
  auto username = secret_file(dir, "username");
  if (!username) return std::unexpected(username.error());
  std::error_code ec;
  const bool has_ca = fs::exists(dir / "ca.crt", ec);
  std::string header;
  if (*bearer && !(*bearer)->empty()) {
    header = "Authorization: Bearer " + **bearer;
  } else if (*password && !(*password)->empty()) {
    const std::string user = *username && !(*username)->empty() ? **username : "git";
    header = "Authorization: Basic " + base64(user + ":" + **password);
  } else if (!has_ca) {
    return fail("git_credentials", "the git credentials in " + dir.string() +
                                       " have neither password (with an optional username) nor bearerToken (nor "
                                       "ca.crt) for an https:// URL");
  }
  GitCredentials credentials{{{"GIT_TERMINAL_PROMPT", "0"}}, {}};
  if (!header.empty()) {
    credentials.environment.insert(credentials.environment.end(), {{"GIT_CONFIG_COUNT", "1"},
                                                                   {"GIT_CONFIG_KEY_0", "http." + url + ".extraHeader"},
                                                                   {"GIT_CONFIG_VALUE_0", header}});
  }
  // A server whose certificate a private CA signed: git trusts that CA (for this fetch only).
  if (has_ca) credentials.environment.emplace_back("GIT_SSL_CAINFO", (dir / "ca.crt").string());
  return credentials;
}

}  // namespace

std::string base64(const std::string& bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (const int shift : {18, 12, 6, 0}) out += kAlphabet[(v >> shift) & 63];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Result<GitCredentials> git_credentials(const fs::path& dir, const std::string& url, const fs::path& scratch) {
  if (dir.empty()) return GitCredentials{{{"GIT_TERMINAL_PROMPT", "0"}}, {}};
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return fail("git_credentials",
                "the git credentials folder " + dir.string() + " ($ODS_GIT_CREDENTIALS_DIR) is missing");
  }
  return is_ssh_url(url) ? ssh_credentials(dir, scratch) : http_credentials(dir, url);
}

}  // namespace ods::cli
