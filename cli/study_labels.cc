// `sweep note STUDY TEXT` and `sweep tag STUDY TAG... [--remove TAG...]`: a
// person's words about a study, written beside a running sweep
// (storage/study_labels.h).
#include "storage/study_labels.h"

#include <cstdio>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "common/nearest_word.h"

namespace sweep {
namespace {

class NoteCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "note", "Set a study's note, shown by sweep studies and the dashboard (\"\" clears it)");
    AddDbOption(c, &db_);
    c->add_option("study", study_, "The study's name")->required();
    c->add_option("text", text_, "The note (at most 4096 bytes)")->required();
    return c;
  }
  int Run(const CommandContext&) override {
    Status st = SetStudyNote(db_, study_, text_);
    if (!st.ok()) return Error(st.message());
    printf("study '%s': %s\n", EscapeControl(study_).c_str(),
           text_.empty() ? "note cleared" : "note set");
    return 0;
  }

 private:
  std::string db_ = "sweep.db", study_, text_;
};

class TagCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("tag", "Add tags to a study (or take them off with --remove)");
    AddDbOption(c, &db_);
    c->add_option("study", study_, "The study's name")->required();
    c->add_option("tags", add_, "Tags to add (no spaces or commas; at most 32 a study)");
    c->add_option("--remove", remove_, "Tags to take off");
    return c;
  }
  int Run(const CommandContext&) override {
    if (add_.empty() && remove_.empty()) return Error("name tags to add, or --remove TAG");
    Status st = TagStudy(db_, study_, add_, remove_);
    if (!st.ok()) return Error(st.message());
    printf("study '%s': tagged %s%s%s\n", EscapeControl(study_).c_str(),
           EscapeControl(JoinWords(add_, 32)).c_str(), remove_.empty() ? "" : "; untagged ",
           EscapeControl(JoinWords(remove_, 32)).c_str());
    return 0;
  }

 private:
  std::string db_ = "sweep.db", study_;
  std::vector<std::string> add_, remove_;
};

}  // namespace

std::unique_ptr<Command> NewNoteCommand() { return std::make_unique<NoteCommand>(); }
std::unique_ptr<Command> NewTagCommand() { return std::make_unique<TagCommand>(); }

}  // namespace sweep
