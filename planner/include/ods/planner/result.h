#pragma once
// Expected failures are values: every fallible ODS function returns Result<T>.
#include <expected>
#include <string>
#include <utility>

namespace ods {

// An error that says what went wrong and where. `code` is a stable snake_case word
// (e.g. "invalid_artifact", "conflict", "corrupt", "newer_schema"); `message` is a
// complete sentence for a person, naming the file/field/row it is about.
struct Error {
  std::string code;
  std::string message;
};

template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string code, std::string message) {
  return std::unexpected<Error>(Error{std::move(code), std::move(message)});
}

}  // namespace ods
