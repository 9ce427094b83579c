#pragma once
// Small pieces of the CLI's English, said the same way everywhere.
#include <cstddef>
#include <string>
#include <string_view>

namespace ods::cli {

// "1 node", "3 nodes": `n` and `noun`, plural (noun + "s") unless n is 1.
std::string count_of(std::size_t n, std::string_view noun);

}  // namespace ods::cli
