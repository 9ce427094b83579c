#pragma once
// Test harness: the shell blocks of a Markdown document, so a test runs what the docs say as
// written (README's tour, docs/kubernetes.md's Quickstart, docs/ci.md's steps) and a doc edit
// that breaks them fails a test.
#include <string>
#include <vector>

namespace ods::testing {

// Every ```sh block of the section that starts at the line `heading` (e.g. "## A short tour"),
// up to the next heading of the same or a higher level, in order; each ends with a newline.
// Empty when the heading is absent or its section has no ```sh block.
std::vector<std::string> sh_blocks_in_section(const std::string& markdown, const std::string& heading);

// The first ```sh block of that section; "" when there is none.
std::string first_sh_block_in_section(const std::string& markdown, const std::string& heading);

// Replaces the one occurrence of `from` in `text`; false (text unchanged) when there is not
// exactly one, so a doc edit that renames what a test replaces fails the test.
bool replace_once(std::string& text, const std::string& from, const std::string& to);

// Replaces every occurrence of `from` in `text`; returns how many there were.
int replace_all(std::string& text, const std::string& from, const std::string& to);

}  // namespace ods::testing
