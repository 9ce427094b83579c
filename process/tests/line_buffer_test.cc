#include "ods/process/line_buffer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ods::process {
namespace {

struct Collector {
  std::vector<std::string> lines;
  LineBuffer::Sink sink() {
    return [this](std::string_view line) { lines.emplace_back(line); };
  }
};

TEST(LineBuffer, JoinsLinesSplitAcrossChunks) {
  LineBuffer buffer(100);
  Collector got;
  buffer.feed("ab", got.sink());
  buffer.feed("c\nde", got.sink());
  buffer.feed("f\n\nlast", got.sink());
  EXPECT_EQ(got.lines, (std::vector<std::string>{"abc", "def", ""}));
  buffer.finish(got.sink());
  EXPECT_EQ(got.lines, (std::vector<std::string>{"abc", "def", "", "last"}));
  buffer.finish(got.sink());  // nothing pending any more
  EXPECT_EQ(got.lines.size(), 4u);
}

TEST(LineBuffer, SplitsALineLongerThanTheLimit) {
  LineBuffer buffer(4);
  Collector got;
  buffer.feed("abcdefghij\nxy\n", got.sink());
  EXPECT_EQ(got.lines, (std::vector<std::string>{"abcd", "efgh", "ij", "xy"}));
}

TEST(LineBuffer, ALineOfExactlyTheLimitIsOneLineEvenAcrossChunks) {
  LineBuffer buffer(4);
  Collector got;
  buffer.feed("abcd\n", got.sink());
  buffer.feed("ef", got.sink());
  buffer.feed("gh", got.sink());
  buffer.feed("\nij\n", got.sink());
  EXPECT_EQ(got.lines, (std::vector<std::string>{"abcd", "efgh", "ij"}));
}

}  // namespace
}  // namespace ods::process
