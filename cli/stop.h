// `sweep stop [STUDY] [--db FILE]`: stops the tuner that runs a database's
// study from another terminal, as Ctrl-C in its own would.
#pragma once

#include <string>

namespace sweep {

// Sends SIGTERM to the process holding `db`'s lock (its pid is in the lock
// file) and waits up to `wait_s` for it to let go: running trials go back
// to the queue and the same `sweep run` resumes them. `study`, if given,
// must be the study that runs. Returns the exit code.
int StopSweep(const std::string& db, const std::string& study, double wait_s);

}  // namespace sweep
