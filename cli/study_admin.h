// `sweep delete STUDY`, `sweep rename STUDY NEW` and `sweep gc [STUDY]`:
// changing a database's studies outside a sweep (storage/study_admin.h does
// the writing).
#pragma once

#include <string>

namespace sweep {

// Deletes STUDY with its trials and their files after a confirmation: a
// yes on the terminal, or `yes` (--yes). 0 done; 1 an error (no such
// study, a tuner runs on the database); 2 no confirmation.
int DeleteStudyCommand(const std::string& db, const std::string& study, bool yes);
// `sweep gc [STUDY]`: removes the checkpoints of finished studies (all, or
// STUDY) but their `keep_best` best trials'. 0 done (unfinished studies are
// skipped, saying why); 1 an error (no such study, a tuner runs).
int CollectCheckpointsCommand(const std::string& db, const std::string& study, int keep_best,
                              bool dry_run);
// 0 renamed; 1 an error (no such study, the name is taken, a tuner runs).
int RenameStudyCommand(const std::string& db, const std::string& study, const std::string& name);

}  // namespace sweep
