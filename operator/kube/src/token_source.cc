#include <fstream>
#include <sstream>

#include "ods/kube/config.h"

namespace ods::kube {

namespace {

// The file's content without surrounding whitespace; nullopt when unreadable.
std::optional<std::string> read_token_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  const auto first = token.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::string();
  const auto last = token.find_last_not_of(" \t\r\n");
  return token.substr(first, last - first + 1);
}

}  // namespace

std::shared_ptr<TokenSource> TokenSource::fixed(std::string token) {
  std::shared_ptr<TokenSource> source(new TokenSource());
  source->token_ = std::move(token);
  return source;
}

Result<std::shared_ptr<TokenSource>> TokenSource::from_file(std::filesystem::path file,
                                                            std::chrono::seconds reread_after, Clock clock) {
  std::optional<std::string> token = read_token_file(file);
  if (!token) return fail("unreadable_token", "cannot read the token file " + file.string());
  if (token->empty()) return fail("unreadable_token", "the token file " + file.string() + " is empty");
  std::shared_ptr<TokenSource> source(new TokenSource());
  source->clock_ = clock ? std::move(clock) : [] { return std::chrono::steady_clock::now(); };
  source->token_ = std::move(*token);
  source->file_ = std::move(file);
  source->reread_after_ = reread_after;
  source->read_at_ = source->clock_();
  return source;
}

std::string TokenSource::token() {
  std::lock_guard lock(mutex_);
  if (file_.empty()) return token_;
  const auto now = clock_();
  if (stale_ || now - read_at_ >= reread_after_) {
    if (std::optional<std::string> fresh = read_token_file(file_); fresh && !fresh->empty()) token_ = *fresh;
    read_at_ = now;
    stale_ = false;
  }
  return token_;
}

void TokenSource::invalidate() {
  std::lock_guard lock(mutex_);
  stale_ = true;
}

}  // namespace ods::kube
