// The files a results database has beside it: SQLite's write-ahead log and
// shared memory (`DB-wal`, `DB-shm`, and `DB-journal` while it switches to
// WAL), which SQLite keeps beside the file, and one folder of sweep's own
// (`NAME.sweep/` for `NAME.db`) holding a folder per study with its command
// trials' logs and its checkpoints, named by the trial's number in the study.
// (The one-writer lock is on the database file itself: storage/db_lock.h.)
// Databases from before this layout kept `DB.checkpoints/` and `DB.logs/`,
// their files named by the trial's id: rows name those files by path, so
// they are still read, and `sweep gc` and `sweep delete` clean them.
// The one place that names these files.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace sweep {

// The database's folder: `NAME.sweep` for `NAME.db`, `FILE.sweep` for any
// other file name.
std::string DbFolderOf(const std::string& db);
// Study `study_id`'s folder in the database's folder `db_folder`.
std::string StudyFolderIn(const std::string& db_folder, int64_t study_id);
inline std::string StudyFolderOf(const std::string& db, int64_t study_id) {
  return StudyFolderIn(DbFolderOf(db), study_id);
}

// The file names in a study's folder, N being the trial's number in its
// study: trial-N.attempt-K.log and trial-N-step-S.ckpt.
std::string LogFileName(int64_t trial_number, int attempt);
std::string CheckpointFileName(int64_t trial_number, int64_t step);
// The start of either kind's names for one trial (the rest follows).
std::string LogFilePrefix(int64_t trial);
std::string CheckpointFilePrefix(int64_t trial);
// The trial whose log or checkpoint file `name` is (by a prefix above), or
// false: a number in a study folder's names, an id in an old folder's.
bool TrialOfFile(const std::string& name, int64_t* trial);

// The folders of databases from before the study folders (files named by
// trials.id): read and cleaned, never written.
std::string OldCheckpointDirOf(const std::string& db);
std::string OldLogDirOf(const std::string& db);

// Before SQLite opens `db` for writing: its side files must not be symbolic
// links (SQLite would fail with "unable to open database file", or write
// through them), and this user must be able to create files in its folder.
// FailedPrecondition (or the system's error) naming the file and the fix.
Status CheckDbSideFiles(const std::string& db);

}  // namespace sweep
