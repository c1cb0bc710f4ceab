// Where a database's side files are, and whether SQLite can make them.
#include "storage/db_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "common/posix_error.h"

namespace sweep {

std::string CheckpointDirOf(const std::string& db) { return db + ".checkpoints"; }
std::string LogDirOf(const std::string& db) { return db + ".logs"; }

Status CheckDbSideFiles(const std::string& db) {
  // SQLite puts them beside the file a linked --db points to.
  char resolved[PATH_MAX];
  const std::string file = realpath(db.c_str(), resolved) ? std::string(resolved) : db;
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    const std::string side = file + suffix;
    struct stat st;
    if (lstat(side.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      return Status::FailedPrecondition(
          side + " is a symbolic link: SQLite keeps the database's " + (suffix + 1) +
          " file there and does not open it through a link; remove the link (the database is " +
          file + ") and run again");
    }
  }
  const size_t slash = file.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : file.substr(0, slash);
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return PosixError("cannot create files in " + dir, errno,
                      "SQLite makes the database's -wal and -shm files beside it");
  }
  return Status::Ok();
}

}  // namespace sweep
