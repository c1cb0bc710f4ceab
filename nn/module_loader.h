// sweep's own plug-in modules: shared objects a process opens with dlopen the
// first time it needs them (the CUDA backend, the CPU backend's oneDNN
// convolutions, XGBoost's trees), so that the tuner, the CLI and the runners that never use
// them never load the libraries behind them.
#pragma once

#include <string>

#include "common/status.h"

namespace sweep::nn {

// Opens `file_name` (e.g. "libsweep_nn_dnnl.so"): the file $env_var names
// when it is set (and nothing else); otherwise the first that exists of:
// beside the running binary, ../lib beside it (where `cmake --install` puts
// it), `build_path` (where the build put it). A file that exists but does
// not load is an error naming it and why. Only when none exists is the
// library path searched. `what` names the module in errors.
Result<void*> OpenModule(const std::string& file_name, const char* env_var, const char* build_path,
                         const std::string& what);

// The address of the entry point `name` of an opened module.
Result<void*> ModuleSymbol(void* handle, const char* name, const std::string& file_name);

// Sets *fn to the entry point `name`; false, with *error saying "cannot load
// WHAT: ...", when the module lacks it.
template <typename Fn>
bool BindSymbol(void* handle, const char* name, const std::string& file_name,
                const std::string& what, Fn* fn, std::string* error) {
  Result<void*> p = ModuleSymbol(handle, name, file_name);
  if (!p.ok()) {
    *error = "cannot load " + what + ": " + p.status().message();
    return false;
  }
  *fn = reinterpret_cast<Fn>(*p);
  return true;
}

}  // namespace sweep::nn
