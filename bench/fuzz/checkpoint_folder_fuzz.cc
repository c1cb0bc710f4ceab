// A command trial's checkpoint folder as a runner unpacks it before a
// resume: whatever the bytes, nothing is written outside the folder (checked
// at every level above it), and what is inside is what the bytes list.
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <set>

#include "bench/fuzz/fuzz_input.h"
#include "proto/sweep.pb.h"
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

std::set<std::string>* g_found;
std::string g_root, g_top;
int Collect(const char* path, const struct stat*, int, struct FTW*) {
  std::string p = path;
  if (p.size() > g_root.size()) g_found->insert(p.substr(g_root.size() + 1));
  return 0;
}

struct Root {
  std::string top, a, b, dir;  // top/a/b/ckpt
  Root() {
    char tmpl[] = "/tmp/sweep-fuzz-folder-XXXXXX";
    if (!mkdtemp(tmpl)) std::abort();
    top = tmpl;
    a = top + "/a";
    b = a + "/b";
    dir = b + "/ckpt";
    mkdir(a.c_str(), 0700);
    mkdir(b.c_str(), 0700);
    g_top = top;
    std::atexit([] { sweep::RemoveTree(g_top); });
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Root* r = new Root;
  mkdir(r->dir.c_str(), 0700);
  auto top = Names(r->top), a = Names(r->a), b = Names(r->b);
  std::string bytes(reinterpret_cast<const char*>(data), size);
  bool ok = sweep::UnpackFolder(bytes, r->dir).ok();
  sweep::fuzz::Check(Names(r->top) == top && Names(r->a) == a && Names(r->b) == b,
                     "nothing is written beside the folder, at any level above it");
  if (ok) {
    // Everything inside is an entry the bytes list, or a folder above one.
    sweep::pb::CheckpointFolder folder;
    folder.ParseFromString(bytes);
    std::set<std::string> listed, found;
    for (const auto& f : folder.files()) {
      for (size_t slash = f.path().find('/'); slash != std::string::npos;
           slash = f.path().find('/', slash + 1))
        listed.insert(f.path().substr(0, slash));
      listed.insert(f.path());
    }
    g_found = &found;
    g_root = r->dir;
    nftw(r->dir.c_str(), Collect, 16, FTW_PHYS);
    for (const auto& p : found) sweep::fuzz::Check(listed.count(p) > 0, "only listed entries");
  }
  sweep::RemoveTree(r->dir);
  return 0;
}
