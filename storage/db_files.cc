// Where a database's side files are, and whether SQLite can make them.
#include "storage/db_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/posix_error.h"

namespace sweep {

std::string DbFolderOf(const std::string& db) {
  const size_t slash = db.rfind('/');
  const size_t name = slash == std::string::npos ? 0 : slash + 1;
  if (db.size() > name + 3 && db.compare(db.size() - 3, 3, ".db") == 0)
    return db.substr(0, db.size() - 3) + ".sweep";
  return db + ".sweep";
}

std::string StudyFolderIn(const std::string& db_folder, int64_t study_id) {
  return db_folder + "/study-" + std::to_string(study_id);
}

std::string LogFilePrefix(int64_t trial) { return "trial-" + std::to_string(trial) + ".attempt-"; }
std::string CheckpointFilePrefix(int64_t trial) {
  return "trial-" + std::to_string(trial) + "-step-";
}
std::string LogFileName(int64_t trial_number, int attempt) {
  return LogFilePrefix(trial_number) + std::to_string(attempt) + ".log";
}
std::string CheckpointFileName(int64_t trial_number, int64_t step) {
  return CheckpointFilePrefix(trial_number) + std::to_string(step) + ".ckpt";
}

bool TrialOfFile(const std::string& name, int64_t* trial) {
  if (name.rfind("trial-", 0) != 0) return false;
  size_t end = 6;
  while (end < name.size() && end < 24 && name[end] >= '0' && name[end] <= '9') ++end;
  if (end == 6 || end == 24) return false;
  const int64_t n = std::stoll(name.substr(6, end - 6));
  const auto ends = [&](const char* suffix) {
    const size_t k = std::char_traits<char>::length(suffix);
    return name.size() > k && name.compare(name.size() - k, k, suffix) == 0;
  };
  const bool log = name.rfind(LogFilePrefix(n), 0) == 0 && ends(".log");
  // A checkpoint's temporary file (left by a crash) is the trial's too.
  const bool ckpt =
      name.rfind(CheckpointFilePrefix(n), 0) == 0 && (ends(".ckpt") || ends(".ckpt.tmp"));
  if (!log && !ckpt) return false;
  *trial = n;
  return true;
}

std::string OldCheckpointDirOf(const std::string& db) { return db + ".checkpoints"; }
std::string OldLogDirOf(const std::string& db) { return db + ".logs"; }

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
  // `x` and `x.db` would share x.sweep/: refused while both are databases.
  const bool dot_db = DbFolderOf(file) != DbFolderOf(file + ".db");  // NAME.db
  const std::string twin = dot_db ? file.substr(0, file.size() - 3) : file + ".db";
  {
    char head[16] = {};
    FILE* f = fopen(twin.c_str(), "rb");
    const bool sqlite = f && fread(head, 1, sizeof head, f) == sizeof head &&
                        std::memcmp(head, "SQLite format 3", 16) == 0;
    if (f) fclose(f);
    if (sqlite)
      return Status::FailedPrecondition(
          file + " and " + twin + " would keep their checkpoints and logs in the same folder, " +
          DbFolderOf(file) + ": rename one of the two databases (with its -wal and -shm files)");
  }
  const size_t slash = file.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : file.substr(0, slash);
  // A folder that does not exist is named by the lock, which makes the file.
  if (access(dir.c_str(), W_OK | X_OK) != 0 && errno != ENOENT) {
    return PosixError("cannot create files in " + dir, errno,
                      "SQLite makes the database's -wal and -shm files beside it");
  }
  return Status::Ok();
}

}  // namespace sweep
