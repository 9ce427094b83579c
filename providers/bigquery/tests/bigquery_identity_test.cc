// BigQuery's relation identity statements: what each kind reads, and that the recording read
// refuses metadata not kept up to date (the emulator suite runs them on bqemulator: tests/warehouses).
#include "ods/bigquery/bigquery_identity.h"

#include <gtest/gtest.h>

namespace ods::bigquery {
namespace {

TEST(BigQueryIdentity, ATableIsItsPartitionsRowsAndNewestModificationAViewItsDefinition) {
  for (auto read : {metadata::IdentityRead::recording, metadata::IdentityRead::checking}) {
    auto statements = identity_statements(read);
    ASSERT_EQ(statements.size(), 2u);
    const std::string& table = statements.at("table");
    EXPECT_NE(table.find("concat('partitions=', cast(count(*) as string), ';rows=', cast(sum(total_rows) as string), "
                         "';last_modified=', format_timestamp('%Y-%m-%dT%H:%M:%E6SZ', max(last_modified_time)))"),
              std::string::npos)
        << table;
    EXPECT_NE(table.find("from {metadata_view:PARTITIONS} where table_name = '{identifier}'"), std::string::npos);
    // No identity while streamed rows are readable before the time moves.
    EXPECT_NE(table.find("countif(partition_id in ('__STREAMING_UNPARTITIONED__', '__UNPARTITIONED__')) = 0"),
              std::string::npos);
    EXPECT_NE(statements.at("view").find("concat('definition=', to_hex(md5(view_definition))) as identity from "
                                         "{metadata_view:VIEWS} where table_name = '{identifier}'"),
              std::string::npos);
  }
}

// Right after ODS's build: rows without logical bytes (bqemulator's 0 bytes) mean the storage
// metadata, its times included, is not kept; no identity is recorded. The check reads what is there.
TEST(BigQueryIdentity, OnlyTheRecordingReadRequiresLogicalBytesForRows) {
  const std::string kept = "countif(total_rows > 0 and coalesce(total_logical_bytes, 0) = 0) = 0";
  EXPECT_NE(identity_statements(metadata::IdentityRead::recording).at("table").find(kept), std::string::npos);
  EXPECT_EQ(identity_statements(metadata::IdentityRead::checking).at("table").find(kept), std::string::npos);
}

}  // namespace
}  // namespace ods::bigquery
