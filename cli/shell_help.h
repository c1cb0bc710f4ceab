// Shell completion scripts (bash, zsh) and the man page, made from the
// command line's own definition (CLI11), so they name every command, flag
// and choice the binary knows: `sweep completion bash|zsh`, `sweep man`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace sweep {

std::string BashCompletion(const CLI::App& app);
std::string ZshCompletion(const CLI::App& app);
// roff for man(1): every command with its flags, exit status, environment.
std::string ManPage(const CLI::App& app, const std::string& version);

}  // namespace sweep
