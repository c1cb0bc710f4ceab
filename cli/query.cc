// `sweep query SQL`: a read-only SQL statement on the database, its rows as
// a table (held, for the widths) or streamed as CSV or JSON.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace sweep {

namespace {

class QueryCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("query", "Run a read-only SQL query");
    AddDbOption(c, &db_);
    c->add_option("sql", sql_, "One SQL statement")->required();
    // A query can have no end (a recursive WITH): the rows read are capped.
    c->add_option("--limit", limit_, "Read at most N rows (0: all of them)")->capture_default_str();
    AddFormatOption(c, &format_, {"table", "csv", "json"});
    return c;
  }

  int Run(const CommandContext&) override {
    return WithReader(db_, format_, [&](Reader& r, Format f) -> Result<std::string> {
      if (f == Format::kTable) {  // held: the columns' widths need every row
        ASSIGN_OR_RETURN(Table t, r.Query(sql_, limit_));
        if (t.truncated) SayCut();
        return FormatRows(t, f);
      }
      // CSV and JSON are written as SQLite steps: nothing is held.
      std::vector<std::string> columns;
      bool first = true;
      auto put = [](const std::string& s) { fwrite(s.data(), 1, s.size(), stdout); };
      ASSIGN_OR_RETURN(bool truncated,
                       r.QueryRows(
                           sql_, limit_,
                           [&](const std::vector<std::string>& c) {
                             columns = c;
                             put(StreamHead(columns, f));
                             return Status::Ok();
                           },
                           [&](std::vector<Cell> row) {
                             put(StreamRow(columns, row, f, first));
                             first = false;
                             // A closed pipe ends the query (as SIGPIPE would).
                             return ferror(stdout) ? Status::Unavailable("the output was closed")
                                                   : Status::Ok();
                           }));
      put(StreamEnd(f));
      if (fflush(stdout) != 0 || ferror(stdout))
        return Status::Unavailable("could not write the rows (a full disk or a closed pipe?)");
      if (truncated) SayCut();
      return std::string();
    });
  }

 private:
  void SayCut() const {
    fprintf(stderr,
            "sweep: the query has more than %zu rows; these are the first (--limit N for "
            "more, 0 for all)\n",
            limit_);
  }

  std::string db_ = "sweep.db", sql_, format_ = "table";
  size_t limit_ = 1000000;
};

}  // namespace

std::unique_ptr<Command> NewQueryCommand() { return std::make_unique<QueryCommand>(); }

}  // namespace sweep
