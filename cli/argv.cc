// --db before the command, moved after it.
#include "cli/argv.h"

#include <string>

namespace sweep {

std::vector<char*> DbAfterCommand(int argc, char** argv) {
  std::vector<char*> head, db, tail;
  head.push_back(argv[0]);
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    std::string a = argv[i];
    if (a == "--db" && i + 1 < argc) {
      db.push_back(argv[i]);
      db.push_back(argv[++i]);
    } else if (a.rfind("--db=", 0) == 0) {
      db.push_back(argv[i]);
    } else {
      head.push_back(argv[i]);
    }
  }
  if (i < argc) head.push_back(argv[i++]);  // the command
  head.insert(head.end(), db.begin(), db.end());
  for (; i < argc; ++i) head.push_back(argv[i]);
  head.push_back(nullptr);
  return head;
}

}  // namespace sweep
