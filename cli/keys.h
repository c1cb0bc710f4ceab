// `sweep keys new` and the key options of `sweep runner`: reading the key
// files (or the descriptor a tuner hands its local runners) into the
// runner's options.
#pragma once

#include <string>

#include "common/status.h"
#include "trial_runner/runner.h"

namespace sweep {

// `sweep keys new NAME --dir DIR [--role ROLE]`: prints what was written
// and how to use it. With a role (client, runner, admin) the pair goes into
// DIR/clients, DIR/runners or DIR/admins.
int KeysNew(const std::string& name, const std::string& dir, const std::string& role = "");

// --server-key FILE --key FILE, or --key-fd N (a local runner's keys from
// its tuner). Neither: no authentication.
Status LoadRunnerKeys(const std::string& server_key_file, const std::string& key_file, int key_fd,
                      RunnerOptions* o);

}  // namespace sweep
