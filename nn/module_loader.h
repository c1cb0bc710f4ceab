// sweep's own plug-in modules: shared objects a process opens with dlopen the
// first time it needs them (the CUDA backend, the CPU backend's oneDNN
// convolutions), so that the tuner, the CLI and the runners that never use
// them never load the libraries behind them.
#pragma once

#include <string>

#include "common/status.h"

namespace sweep::nn {

// Opens `file_name` (e.g. "libsweep_nn_dnnl.so"), looking at $env_var,
// beside the running binary, in ../lib beside it (where `cmake --install`
// puts it), at `build_path` (where the build put it), then on the library
// path. `what` names the module in the error ("the CUDA backend").
Result<void*> OpenModule(const std::string& file_name, const char* env_var, const char* build_path,
                         const std::string& what);

// The address of the entry point `name` of an opened module.
Result<void*> ModuleSymbol(void* handle, const char* name, const std::string& file_name);

}  // namespace sweep::nn
