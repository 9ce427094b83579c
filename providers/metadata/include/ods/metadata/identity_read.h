#pragma once
// What a warehouse's relation identity statement is read for (docs/warehouses.md, "Relation
// identity"), for the warehouses whose identity is a modification time kept by their metadata
// (Snowflake, BigQuery): the recording read, right after ODS's build, records an identity only
// where the metadata shows it is kept up to date, the checking read, in the probe, reads what is
// there to compare with the recorded one. Pure data.
namespace ods::metadata {

enum class IdentityRead {
  recording,  // right after ODS's build, to record
  checking,   // in the probe, to compare with the recorded one
};

}  // namespace ods::metadata
