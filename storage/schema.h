// The results database schema as a list of migrations: entry i moves the
// database from version i to i + 1 (PRAGMA user_version). Documented in
// docs/schema.md; append, never edit, once released.
#pragma once

#include <sqlite3.h>

#include <string>
#include <vector>

#include "common/status.h"

namespace sweep {

const std::vector<std::string>& SchemaMigrations();

// Reads, and never writes, what `db` holds: its schema version, 0 for an
// empty database (a new one). A database that is not SQLite, one with tables
// but not sweep's, and one with a newer schema than this build's are errors
// (kFailedPrecondition) naming `path`, so nothing is written to them.
Result<int> InspectDatabase(sqlite3* db, const std::string& path);

}  // namespace sweep
