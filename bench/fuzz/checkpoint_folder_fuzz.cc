// A command trial's checkpoint folder as a runner unpacks it before a
// resume: whatever the bytes, nothing is written outside the folder.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "bench/fuzz/fuzz_input.h"
#include "trial_runner/checkpoint_folder.h"

namespace {

std::set<std::string> Names(const std::string& dir) {
  std::set<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) out.insert(e->d_name);
    closedir(d);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::string root = [] {
    char tmpl[] = "/tmp/sweep-fuzz-folder-XXXXXX";
    return std::string(mkdtemp(tmpl));
  }();
  std::string dir = root + "/ckpt";
  mkdir(dir.c_str(), 0700);
  std::set<std::string> before = Names(root);
  (void)sweep::UnpackFolder(std::string(reinterpret_cast<const char*>(data), size), dir);
  sweep::fuzz::Check(Names(root) == before, "nothing is written beside the folder");
  sweep::RemoveTree(dir);
  return 0;
}
