// Ctrl-C and SIGTERM for the processes that hold a database (`sweep run`,
// `sweep serve`): the first asks the loop to stop cleanly (Interrupted()),
// a second exits at once (code 130; what was committed is safe).
#pragma once

namespace sweep {

// Installs the handlers for SIGINT and SIGTERM, and ignores SIGPIPE.
void CatchInterrupts();
// Whether a first SIGINT or SIGTERM has arrived.
bool Interrupted();

}  // namespace sweep
