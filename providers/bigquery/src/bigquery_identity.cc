#include "ods/bigquery/bigquery_identity.h"

namespace ods::bigquery {

namespace {

constexpr const char* kFields =
    "concat('partitions=', cast(count(*) as string), ';rows=', cast(sum(total_rows) as string), "
    "';last_modified=', format_timestamp('%Y-%m-%dT%H:%M:%E6SZ', max(last_modified_time)))";

// Partitions listed, none holding streamed rows not yet in their time.
constexpr const char* kReadable =
    "count(*) > 0 and countif(partition_id in ('__STREAMING_UNPARTITIONED__', '__UNPARTITIONED__')) = 0";

// Every partition with rows has logical bytes: the storage metadata is kept.
constexpr const char* kKept = " and countif(total_rows > 0 and coalesce(total_logical_bytes, 0) = 0) = 0";

}  // namespace

std::map<std::string, std::string> identity_statements(metadata::IdentityRead read) {
  const std::string when = std::string(kReadable) + (read == metadata::IdentityRead::recording ? kKept : "");
  return {{"table", "select case when " + when + " then " + kFields +
                        " end as identity from {metadata_view:PARTITIONS} where table_name = '{identifier}'"},
          {"view",
           "select concat('definition=', to_hex(md5(view_definition))) as identity from {metadata_view:VIEWS} "
           "where table_name = '{identifier}'"}};
}

}  // namespace ods::bigquery
