// The command line before CLI11 reads it: `sweep --db FILE trials` becomes
// `sweep trials --db FILE`, where every command that reads a database takes
// it (-v works on either side already).
#pragma once

#include <vector>

namespace sweep {

// argv with a --db before the command moved after it; ends with nullptr.
std::vector<char*> DbAfterCommand(int argc, char** argv);

}  // namespace sweep
