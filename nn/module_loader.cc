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
  if (n <= 0) return ".";
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

}  // namespace

Result<void*> OpenModule(const std::string& file_name, const char* env_var, const char* build_path,
                         const std::string& what) {
  std::vector<std::string> tries;
  if (const char* env = getenv(env_var)) tries.push_back(env);
  // An installed binary takes the module installed with it, never one of a
  // build tree that may since have been rebuilt.
  tries.push_back(ExeDir() + "/" + file_name);
  tries.push_back(ExeDir() + "/../lib/" + file_name);
  tries.push_back(build_path);
  tries.push_back(file_name);
  std::string error;
  for (const auto& path : tries) {
    if (path.find('/') != std::string::npos && access(path.c_str(), F_OK) != 0) continue;
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    error = dlerror();  // e.g. a library the module needs is missing
  }
  if (error.empty()) error = file_name + " not found";
  return Status::Unavailable("cannot load " + what + ": " + error);
}

Result<void*> ModuleSymbol(void* handle, const char* name, const std::string& file_name) {
  void* p = dlsym(handle, name);
  if (p == nullptr) return Status::Unavailable(file_name + " lacks its entry point " + name);
  return p;
}

}  // namespace sweep::nn
