// `sweep delete STUDY`, `sweep rename STUDY NEW` and `sweep gc [STUDY]`:
// changing a database's studies outside a sweep (storage/study_admin.h does
// the writing).
#pragma once

#include <string>

#include "common/status.h"

namespace sweep {

// Ok for an existing database no tuner runs on; else why not, ending with
// "stop it first (`sweep stop --db DB`), then VERB". Commands that write
// outside a sweep check it before Store::Open takes the lock.
Status NoTuner(const std::string& db, const std::string& verb);

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
