// Text for a person's terminal: what came from a runner, a program or a study
// file made safe to print, and words quoted for a shell command to copy.
#pragma once

#include <string>
#include <string_view>

namespace sweep {

// Text that came from a runner or a study file, made safe for a terminal:
// C0 control characters, DEL and UTF-8-encoded C1 controls become \xNN
// (ESC is \x1b), so no escape sequence reaches the terminal, and the
// bidirectional-text controls (common/bidi_controls.h) become \uNNNN, so
// nothing reorders what is shown. Everything else, other UTF-8 included, is
// unchanged; `keep_newlines` leaves '\n' (for
// CSV, which quotes it). Tables and CSV escape every cell and column name
// with it; JSON escapes the same characters its way.
std::string EscapeControl(std::string_view s, bool keep_newlines = false);
// `word` as one shell word: as it is when that is safe, else in single
// quotes ('it'\''s'), for the commands a message tells a person to run.
std::string ShellWord(std::string_view word);

}  // namespace sweep
