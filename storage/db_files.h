// The files a results database has beside it: SQLite's write-ahead log and
// shared memory (`DB-wal`, `DB-shm`, and `DB-journal` while it switches to
// WAL), the command trials' logs (`DB.logs/`) and the checkpoints
// (`DB.checkpoints/`). The one place that names them.
#pragma once

#include <string>

#include "common/status.h"

namespace sweep {

// The folder of the checkpoints of the database at `db`.
std::string CheckpointDirOf(const std::string& db);
// The folder of the command trials' logs of the database at `db`.
std::string LogDirOf(const std::string& db);

// Before SQLite opens `db` for writing: its side files must not be symbolic
// links (SQLite would fail with "unable to open database file", or write
// through them), and this user must be able to create files in its folder.
// FailedPrecondition (or the system's error) naming the file and the fix.
Status CheckDbSideFiles(const std::string& db);

}  // namespace sweep
