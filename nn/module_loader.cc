// Finding and opening sweep's plug-in modules; see module_loader.h.
#include "nn/module_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <vector>

namespace sweep::nn {

namespace {

std::string ExeDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";  // unknown: no place relative to it
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

}  // namespace

Result<void*> OpenModule(const std::string& file_name, const char* env_var, const char* build_path,
                         const std::string& what) {
  // $env_var, when set, is the only place looked at: a wrong path is an
  // error, never a reason to load another build's module.
  std::vector<std::string> tries;
  if (const char* env = getenv(env_var); env && *env) {
    tries.push_back(env);
  } else {
    // An installed binary takes the module installed with it, never one of
    // a build tree that may since have been rebuilt.
    if (std::string exe = ExeDir(); !exe.empty()) {
      tries.push_back(exe + "/" + file_name);
      tries.push_back(exe + "/../lib/" + file_name);
    }
    tries.push_back(build_path);
  }
  // The first file that exists is the module: if it cannot load (a library
  // it needs is missing), that is the error, and no other file is tried.
  for (const auto& path : tries) {
    if (access(path.c_str(), F_OK) != 0) continue;
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    return Status::Unavailable("cannot load " + what + " from " + path + ": " + dlerror());
  }
  if (getenv(env_var) && *getenv(env_var))
    return Status::Unavailable("cannot load " + what + ": $" + std::string(env_var) + " names " +
                               tries[0] + ", which does not exist");
  // Nowhere sweep puts it: the library path, as a last resort.
  if (void* handle = dlopen(file_name.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
  return Status::Unavailable("cannot load " + what + ": " + file_name +
                             " is neither beside the sweep binary, in ../lib, nor in the build "
                             "tree (" +
                             dlerror() + ")");
}

Result<void*> ModuleSymbol(void* handle, const char* name, const std::string& file_name) {
  void* p = dlsym(handle, name);
  if (p == nullptr) return Status::Unavailable(file_name + " lacks its entry point " + name);
  return p;
}

}  // namespace sweep::nn
