// Snowflake's relation identity statements: what each kind reads, and that the recording read
// refuses metadata not kept up to date (the emulator suite runs them on fakesnow: tests/warehouses).
#include "ods/snowflake/snowflake_identity.h"

#include <gtest/gtest.h>

namespace ods::snowflake {
namespace {

TEST(SnowflakeIdentity, ATableIsItsCreationAndLastAlteredTimeAViewItsDefinition) {
  for (auto read : {metadata::IdentityRead::recording, metadata::IdentityRead::checking}) {
    auto statements = identity_statements(read);
    ASSERT_EQ(statements.size(), 2u);
    const std::string& table = statements.at("table");
    EXPECT_NE(table.find("'created=' || to_varchar(created"), std::string::npos) << table;
    EXPECT_NE(table.find("';last_altered=' || to_varchar(last_altered"), std::string::npos) << table;
    EXPECT_NE(table.find("from {metadata_view:TABLES}"), std::string::npos) << table;
    EXPECT_NE(table.find("table_type = 'BASE TABLE'"), std::string::npos) << table;
    EXPECT_NE(table.find("upper(table_schema) = upper('{schema}') and table_name = '{identifier}'"), std::string::npos);
    const std::string& view = statements.at("view");
    EXPECT_NE(view.find("'definition=' || md5(view_definition) as identity from {metadata_view:VIEWS}"),
              std::string::npos)
        << view;
  }
}

// Right after ODS's build the table was just written: a last_altered older than a day (fakesnow's
// 1970-01-01) is not kept up to date and gives no identity. The check reads what is there.
TEST(SnowflakeIdentity, OnlyTheRecordingReadRequiresALastAlteredOfTheLastDay) {
  const std::string guard = "case when last_altered >= dateadd('day', -1, current_timestamp()) then ";
  EXPECT_NE(identity_statements(metadata::IdentityRead::recording).at("table").find(guard), std::string::npos);
  EXPECT_EQ(identity_statements(metadata::IdentityRead::checking).at("table").find("case when"), std::string::npos);
  EXPECT_EQ(identity_statements(metadata::IdentityRead::recording).at("view"),
            identity_statements(metadata::IdentityRead::checking).at("view"));
}

}  // namespace
}  // namespace ods::snowflake
