// Walks the CLI11 definition of `sweep` and writes completion scripts and a
// man page from it.
#include "cli/shell_help.h"

#include <cctype>
#include <vector>

namespace sweep {

namespace {

struct Flag {
  std::vector<std::string> names;  // "--db", "-o"
  std::string help;
  bool takes_value = false;
  std::vector<std::string> choices;  // from an IsMember check: {a,b,c}
  std::string value_name;            // TYPE, or the choices
};

struct Positional {
  std::string name, help;
  bool study_file = false;  // a file, not a study's name
  bool study_name = false;
};

struct Command {
  std::string name, help;
  std::vector<Flag> flags;
  std::vector<Positional> positionals;
  std::vector<Command> subcommands;
};

std::vector<std::string> Choices(const std::string& type_name) {
  std::vector<std::string> out;
  size_t open = type_name.find('{'), close = type_name.find('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  std::string list = type_name.substr(open + 1, close - open - 1), item;
  for (char c : list + ",") {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return out;
}

// The placeholder of a flag's value: its choices (a|b), N for a number, or
// the flag's own name (--db DB).
std::string ValueName(const CLI::Option& o, const std::vector<std::string>& choices) {
  if (!choices.empty()) {
    std::string out;
    for (const auto& c : choices) out += (out.empty() ? "" : "|") + c;
    return out;
  }
  std::string type = o.get_type_name();
  if (type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0) return "N";
  if (type.rfind("FLOAT", 0) == 0) return "X";
  std::string name = o.get_lnames().empty() ? "VALUE" : o.get_lnames()[0];
  for (char& ch : name) ch = ch == '-' ? '_' : static_cast<char>(std::toupper(ch));
  return name;
}

Command Describe(const CLI::App& app) {
  Command c;
  c.name = app.get_name();
  c.help = app.get_description();
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_group().empty()) continue;  // hidden (--key-fd)
    if (o->nonpositional()) {
      Flag f;
      for (const auto& l : o->get_lnames()) f.names.push_back("--" + l);
      for (const auto& s : o->get_snames()) f.names.push_back("-" + s);
      f.help = o->get_description();
      f.takes_value = o->get_expected_max() != 0;
      f.choices = Choices(o->get_type_name());
      f.value_name = ValueName(*o, f.choices);
      c.flags.push_back(std::move(f));
    } else if (o->get_positional()) {
      Positional p;
      p.name = o->get_name(true);
      p.help = o->get_description();
      p.study_file = p.help.rfind("Study file", 0) == 0;
      p.study_name = !p.study_file && (p.name == "study" || p.name == "trial");
      c.positionals.push_back(std::move(p));
    }
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    c.subcommands.push_back(Describe(*sub));
  return c;
}

std::string Join(const std::vector<std::string>& v, const std::string& sep = " ") {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string AllFlags(const Command& c) {
  std::vector<std::string> all;
  for (const Flag& f : c.flags)
    for (const auto& n : f.names) all.push_back(n);
  return Join(all);
}

// zsh and roff text: quotes, brackets and colons escaped for each.
std::string ZshText(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '\'')
      out += "'\\''";
    else if (ch == '[' || ch == ']' || ch == ':')
      out += std::string("\\") + ch;
    else
      out += ch;
  }
  return out;
}

std::string Roff(const std::string& s) {
  std::string out;
  bool line_start = true;
  for (char ch : s) {
    if (ch == '\\')
      out += "\\e";
    else if (ch == '-')
      out += "\\-";
    else if (line_start && (ch == '.' || ch == '\''))
      out += std::string("\\&") + ch;
    else
      out += ch;
    line_start = ch == '\n';
  }
  return out;
}

const char* kStudyFiles = "*.@(yaml|yml|json|pbtxt|textproto)";

}  // namespace

std::string BashCompletion(const CLI::App& app) {
  Command root = Describe(app);
  std::string out =
      "# bash completion for sweep, made by `sweep completion bash`.\n"
      "# Install: sweep completion bash > ~/.local/share/bash-completion/completions/sweep\n"
      // Study names come from `sweep studies --names` (one per line, control
      // characters escaped) and are never evaluated: a name is any text.
      "_sweep_studies() {\n"
      "  local db=\"${SWEEP_DB:-sweep.db}\" i\n"
      "  for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do\n"
      "    if [[ ${COMP_WORDS[i]} == --db ]]; then\n"
      "      db=\"${COMP_WORDS[i + 1]}\"\n"
      "      [[ $db == = ]] && db=\"${COMP_WORDS[i + 2]}\"\n"
      "    fi\n"
      "  done\n"
      // A typed ~/ is the home folder; nothing else on the line is expanded.
      "  [[ $db == \"~/\"* ]] && db=\"$HOME/${db#\"~/\"}\"\n"
      "  [[ -f $db ]] || return 0\n"
      "  \"${COMP_WORDS[0]}\" studies --names --db \"$db\" 2>/dev/null\n"
      "}\n"
      "_sweep() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD - 1]}\"\n"
      "  [[ $cur == = ]] && cur=\"\" && prev=\"${COMP_WORDS[COMP_CWORD - 1]}\"\n"
      "  [[ $prev == = ]] && prev=\"${COMP_WORDS[COMP_CWORD - 2]}\"\n"
      "  local cmd=\"\" sub=\"\" i n\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"${COMP_WORDS[i]}\" in\n"
      "      --db) ((i++)); [[ ${COMP_WORDS[i]} == = ]] && ((i++)) ;;\n"
      "      -*) ;;\n"
      "      *) if [[ -z $cmd ]]; then cmd=\"${COMP_WORDS[i]}\"; elif [[ $cmd == keys && -z $sub "
      "]]; then sub=\"${COMP_WORDS[i]}\"; fi ;;\n"
      "    esac\n"
      "  done\n"
      "  COMPREPLY=()\n"
      "  if [[ -z $cmd ]]; then\n";
  std::vector<std::string> names;
  for (const Command& c : root.subcommands) names.push_back(c.name);
  out += "    COMPREPLY=($(compgen -W \"" + Join(names) + " " + AllFlags(root) +
         "\" -- \"$cur\"))\n    return 0\n  fi\n";
  out += "  [[ -n $sub ]] && cmd=\"$cmd-$sub\"\n  case \"$cmd\" in\n";
  auto write = [&](const Command& c, const std::string& key) {
    out += "    " + key + ")\n";
    // A flag's value: its choices, or files (the default).
    std::string values;
    for (const Flag& f : c.flags) {
      if (!f.takes_value) continue;
      values += "        " + Join(f.names, "|") + ") ";
      if (!f.choices.empty())
        values +=
            "COMPREPLY=($(compgen -W \"" + Join(f.choices) + "\" -- \"$cur\")); return 0 ;;\n";
      else
        values += "return 0 ;;\n";
    }
    if (!values.empty()) out += "      case \"$prev\" in\n" + values + "      esac\n";
    out += "      if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"" + AllFlags(c) +
           " --help\" -- \"$cur\"))\n";
    if (!c.subcommands.empty()) {
      std::vector<std::string> subs;
      for (const Command& s : c.subcommands) subs.push_back(s.name);
      out += "      else\n        COMPREPLY=($(compgen -W \"" + Join(subs) + "\" -- \"$cur\"))\n";
    } else if (!c.positionals.empty() && c.positionals[0].study_file) {
      out += std::string("      else\n        local IFS=$'\\n' glob\n") +
             "        glob=$(shopt -p extglob); shopt -s extglob\n"
             "        compopt -o filenames 2>/dev/null\n"
             "        COMPREPLY=($(compgen -f -X '!" +
             kStudyFiles + "' -- \"$cur\") $(compgen -d -- \"$cur\"))\n        eval \"$glob\"\n";
    } else if (!c.positionals.empty() && c.positionals[0].study_name) {
      out +=
          "      else\n"
          "        while IFS= read -r n; do\n"
          "          [[ $n == \"$cur\"* ]] && COMPREPLY+=(\"$(printf '%q' \"$n\")\")\n"
          "        done < <(_sweep_studies)\n";
    }
    out += "      fi\n      ;;\n";
  };
  for (const Command& c : root.subcommands) {
    write(c, c.name);
    for (const Command& s : c.subcommands) write(s, c.name + "-" + s.name);
  }
  out += "  esac\n  return 0\n}\ncomplete -o default -F _sweep sweep\n";
  return out;
}

std::string ZshCompletion(const CLI::App& app) {
  Command root = Describe(app);
  std::string out =
      "#compdef sweep\n"
      "# zsh completion for sweep, made by `sweep completion zsh`. Install: put it in a\n"
      "# folder of $fpath as _sweep (e.g. sweep completion zsh > ~/.zfunc/_sweep).\n"
      // `_sweep_words`: the whole command line, saved before _arguments
      // shifts `words` to the command's own.
      "_sweep_studies() {\n"
      "  local db=${SWEEP_DB:-sweep.db} i\n"
      "  for ((i = 1; i < $#_sweep_words; i++)); do\n"
      "    [[ $_sweep_words[i] == --db ]] && db=$_sweep_words[i+1]\n"
      "    [[ $_sweep_words[i] == --db=* ]] && db=${_sweep_words[i]#--db=}\n"
      "  done\n"
      "  db=${(Q)db}; [[ $db == \\~/* ]] && db=$HOME/${db#\\~/}\n"
      "  [[ -f $db ]] || return 1\n"
      "  local -a names\n"
      "  names=(${(f)\"$($_sweep_words[1] studies --names --db $db 2>/dev/null)\"})\n"
      "  names=(${names//:/\\:})\n"
      "  _describe 'study' names\n"
      "}\n";
  auto args = [&](const Command& c) {
    std::string a;
    for (const Flag& f : c.flags) {
      std::string names = f.names.size() == 1 ? f.names[0] : "{" + Join(f.names, ",") + "}";
      std::string spec = f.names.size() == 1 ? "'" + names : names + "'";
      spec += "[" + ZshText(f.help) + "]";
      if (f.takes_value) {
        spec += ":" + ZshText(f.value_name.empty() ? "value" : f.value_name) + ":";
        spec += f.choices.empty() ? "_files" : "(" + Join(f.choices) + ")";
      }
      a += " \\\n      " + spec + "'";
    }
    int k = 1;
    for (const Positional& p : c.positionals) {
      std::string action = p.study_file   ? "_files -g \"*.(yaml|yml|json|pbtxt|textproto)\""
                           : p.study_name ? "_sweep_studies"
                                          : " ";
      a += " \\\n      '" + std::to_string(k++) + ":" + ZshText(p.name) + ":" + action + "'";
    }
    return a;
  };
  out +=
      "_sweep() {\n  local -a commands _sweep_words\n  _sweep_words=(\"${words[@]}\")\n  "
      "commands=(\n";
  for (const Command& c : root.subcommands)
    out += "    '" + ZshText(c.name) + ":" + ZshText(c.help) + "'\n";
  out += "  )\n  local curcontext=$curcontext state line\n";
  // --db may come before the command too (cli/argv.h): it is taken out of
  // `words` (it stays in `_sweep_words`, where the study names look).
  out +=
      "  if [[ $words[2] == --db && CURRENT -gt 3 ]]; then\n"
      "    words=(\"$words[1]\" \"${(@)words[4,-1]}\"); (( CURRENT -= 2 ))\n"
      "  elif [[ $words[2] == --db=* && CURRENT -gt 2 ]]; then\n"
      "    words=(\"$words[1]\" \"${(@)words[3,-1]}\"); (( CURRENT -= 1 ))\n"
      "  fi\n";
  out += "  _arguments -C" + args(root) +
         " \\\n      '1:command:->command' '*::argument:->argument'\n";
  out +=
      "  case $state in\n    command) _describe 'command' commands ;;\n    argument)\n"
      "      case $words[1] in\n";
  for (const Command& c : root.subcommands) {
    out += "        " + c.name + ")\n";
    if (!c.subcommands.empty()) {
      out += "          if (( CURRENT == 2 )); then\n            local -a subs; subs=(";
      for (const Command& s : c.subcommands)
        out += "'" + ZshText(s.name) + ":" + ZshText(s.help) + "' ";
      out +=
          ")\n            _describe 'command' subs\n          else\n            shift words; "
          "(( CURRENT-- ))\n            case $words[1] in\n";
      for (const Command& s : c.subcommands)
        out += "              " + s.name + ") _arguments" + args(s) + " ;;\n";
      out += "            esac\n          fi ;;\n";
    } else {
      out += "          _arguments" + args(c) + " ;;\n";
    }
  }
  out += "      esac ;;\n  esac\n}\n_sweep \"$@\"\n";
  return out;
}

std::string ManPage(const CLI::App& app, const std::string& version) {
  Command root = Describe(app);
  std::string out = ".\\\" The man page of sweep, made by `sweep man` from its own help text.\n";
  out += ".TH SWEEP 1 \"\" \"sweep " + Roff(version) + "\" \"User Commands\"\n";
  out += ".SH NAME\nsweep \\- " + Roff(root.help.substr(root.help.find(':') + 2)) + "\n";
  out +=
      ".SH SYNOPSIS\n.B sweep\n[\\fB\\-v\\fR] [\\fB\\-\\-version\\fR] \\fICOMMAND\\fR "
      "[\\fIARGS\\fR...]\n";
  out +=
      ".SH DESCRIPTION\nsweep runs hyperparameter searches: a study file names the objective, "
      "the task a trial runs, the algorithm and the search space; \\fBsweep run\\fR hands "
      "trials to runners over ZeroMQ and commits every result to a SQLite database, which the "
      "other commands read while a sweep runs. A trial is named by its number in its study. "
      "The reference is in the docs/ folder of the source: study.md, cli.md, schema.md, "
      "protocol.md, security.md.\n";
  out += ".SH OPTIONS\n";
  for (const Flag& f : root.flags) {
    out += ".TP\n.B " + Roff(Join(f.names, ", ")) + "\n" + Roff(f.help) + "\n";
  }
  out += ".SH COMMANDS\n";
  auto command = [&](const Command& c, const std::string& path) {
    std::string usage = "sweep " + Roff(path);
    for (const Flag& f : c.flags) {
      if (f.names.empty()) continue;
      usage += " [\\fB" + Roff(f.names[0]) + "\\fR" +
               (f.takes_value ? " \\fI" + Roff(f.value_name) + "\\fR" : "") + "]";
    }
    for (const Positional& p : c.positionals) usage += " \\fI" + Roff(p.name) + "\\fR";
    out += ".SS " + Roff(path) + "\n" + Roff(c.help) + ".\n.PP\n" + usage + "\n";
    for (const Positional& p : c.positionals)
      out += ".TP\n.I " + Roff(p.name) + "\n" + Roff(p.help) + "\n";
    for (const Flag& f : c.flags)
      out += ".TP\n.B " + Roff(Join(f.names, ", ")) + "\n" + Roff(f.help) + "\n";
  };
  for (const Command& c : root.subcommands) {
    command(c, c.name);
    for (const Command& s : c.subcommands) command(s, c.name + " " + s.name);
  }
  out +=
      ".SH EXIT STATUS\n.TP\n.B 0\ndone (\\fBsweep run\\fR: at least one trial completed)\n"
      ".TP\n.B 1\nan error the message names: an invalid study, a database error, no trial "
      "completed, a trial or study not found\n.TP\n.B 2\na usage error: an unknown flag, a "
      "missing or malformed argument, a flag that does nothing as given\n.TP\n.B 130\n"
      "interrupted by Ctrl\\-C or SIGTERM (running trials are re\\-queued; the same command "
      "resumes)\n";
  out +=
      ".SH ENVIRONMENT\n.TP\n.B SWEEP_DB\nthe database of every \\fB\\-\\-db\\fR (default "
      "sweep.db)\n.TP\n.B SWEEP_DASHBOARD_TOKEN\nthe token \\fBsweep dashboard\\fR requires "
      "beyond loopback\n";
  out +=
      ".SH FILES\n.TP\n.I sweep.db\nthe results database; beside it \\fIsweep.sweep/\\fR, a "
      "folder per study with its checkpoints and command trials' logs\n";
  out += ".SH SEE ALSO\n\\fBsqlite3\\fR(1)\n";
  return out;
}

}  // namespace sweep
