// MappedFile (internal; src/mapped_file.h): a released part of the map leaves the process's
// resident memory, and its bytes stay readable.
#include "mapped_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace ods::dbt::internal {
namespace {

namespace fs = std::filesystem;

// Resident pages of this process, in bytes (/proc/self/statm, second field).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

std::size_t checksum(std::string_view text) {
  std::size_t sum = 0;
  for (unsigned char c : text) sum = sum * 31 + c;
  return sum;
}

TEST(MappedFile, ReleasedPagesLeaveResidentMemoryAndStayReadable) {
  const fs::path path = fs::temp_directory_path() / ("ods-mapped-file-" + std::to_string(::getpid()));
  constexpr std::size_t kSize = std::size_t{24} << 20;
  {
    std::ofstream out(path, std::ios::binary);
    std::string block(1 << 20, '\0');
    for (std::size_t b = 0; b < kSize / block.size(); ++b) {
      for (std::size_t i = 0; i < block.size(); ++i) block[i] = static_cast<char>('a' + (b * 7 + i) % 26);
      out << block;
    }
  }
  auto file = MappedFile::open(path);
  ASSERT_TRUE(file) << file.error().message;
  const std::size_t before_read = resident_bytes();
  const std::size_t sum = checksum(file->text());  // every page touched
  const std::size_t read = resident_bytes();
  ASSERT_GT(read, before_read + (std::size_t{16} << 20)) << "the read did not make the map resident";

  file->release_before(std::size_t{20} << 20);
  EXPECT_LT(resident_bytes(), read - (std::size_t{16} << 20));
  file->release_before(std::size_t{1} << 20);  // behind what was released: nothing to do
  EXPECT_EQ(checksum(file->text()), sum);      // read again from the file
  fs::remove(path);
}

}  // namespace
}  // namespace ods::dbt::internal
