// The results database schema as a list of migrations: entry i moves the
// database from version i to i + 1 (PRAGMA user_version). Documented in
// docs/schema.md; append, never edit, once released.
#pragma once

#include <string>
#include <vector>

namespace sweep {

const std::vector<std::string>& SchemaMigrations();

}  // namespace sweep
