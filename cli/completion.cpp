#include "cli/completion.h"
#include "cli/command.h"
#include "cli/emit.h"
#include "cli/help.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <functional>
#include <map>

#include "cli/app.h"
#include "cli/errors.h"
#include "cli/recipe.h"
#include "lab/catalog.h"
#include "report/exporter.h"

namespace eb::cli {

namespace {

// What a value can be, by its placeholder in --help (cli/help.cpp): files,
// a closed list, or anything (nothing to offer).
struct Values {
    bool files = false;
    std::vector<std::string> choices = {};
};

Values values_for(const std::string& placeholder) {
    static const std::map<std::string, std::function<std::vector<std::string>()>> lists = {
        {"FORMAT", [] {
             std::vector<std::string> v;  // every command's: --format says which apply to it
             for (const auto& f : report::formats()) v.emplace_back(f.name);
             return v;
         }},
        {"TEST", lab::test_names},
        {"MODE", [] { return std::vector<std::string>(lab::kApicModes.begin(), lab::kApicModes.end()); }},
        {"KEY", [] { return std::vector<std::string>(lab::kSortKeys.begin(), lab::kSortKeys.end()); }},
        {"SHELL", [] { return std::vector<std::string>{"bash", "zsh"}; }},
        {"EVENT", [] {
             std::vector<std::string> v;
             for (auto m : {lab::Mode::VmExit, lab::Mode::Mmio, lab::Mode::Ioport, lab::Mode::Msr})
                 v.emplace_back(lab::mode_name(m));
             return v;
         }},
        {"RECIPE", [] {
             std::vector<std::string> v;
             for (const auto& r : recipes()) v.push_back(r.name);
             return v;
         }},
    };
    if (placeholder == "FILE" || placeholder == "PATH") return {.files = true};
    auto it = lists.find(placeholder);
    return it == lists.end() ? Values{} : Values{.choices = it->second()};
}

struct ValueOption {
    std::vector<std::string> names;  // --json, -o, ...
    std::string placeholder;
    Values values;
};

// One command of the tree, as a completion script needs it.
struct Node {
    std::string path;                                       // "" for the root, "profile record"
    std::vector<std::pair<std::string, std::string>> words = {};  // candidate, description
    std::vector<ValueOption> takes_value = {};
    bool positional_files = false;
};

Node node_of(const CLI::App& app) {
    Node n{.path = path_of(app)};
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }))
        n.words.emplace_back(sub->get_name(), sub->get_description());
    for (const CLI::Option* o : app.get_options()) {
        Values v = values_for(o->get_type_name());
        if (o->get_positional()) {
            for (const auto& c : v.choices) n.words.emplace_back(c, o->get_description());
            n.positional_files = n.positional_files || v.files;
            continue;
        }
        std::vector<std::string> names;
        for (const auto& s : o->get_snames()) names.push_back("-" + s);
        for (const auto& l : o->get_lnames()) names.push_back("--" + l);
        for (const auto& name : names) n.words.emplace_back(name, o->get_description());
        if (o->get_expected_max() > 0) n.takes_value.push_back({names, o->get_type_name(), v});
    }
    return n;
}

std::vector<Node> tree() {
    std::vector<Node> nodes;
    visit_commands([&](const CLI::App& app) { nodes.push_back(node_of(app)); });
    return nodes;
}

// A word inside a single-quoted shell string.
std::string quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string joined(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, " ")); }

// The case arms that follow the words typed so far down to a command:
// "parent:child") cmd="parent child".
std::string path_arms(const std::vector<Node>& nodes, const char* word) {
    std::string s;
    for (const auto& n : nodes) {
        if (n.path.empty()) continue;
        auto cut = n.path.rfind(' ');
        std::string parent = cut == std::string::npos ? "" : n.path.substr(0, cut);
        std::string child = cut == std::string::npos ? n.path : n.path.substr(cut + 1);
        s += fmt::format("            {}) cmd={} ;;\n", quoted(parent + ":" + child), quoted(n.path));
    }
    return fmt::format("        case \"$cmd:{}\" in\n{}        esac\n", word, s);
}

// The two case statements a script is made of, in one shell's words: what
// follows an option that takes a value, and what each command offers.
struct Arms {
    std::string values, commands;
};

Arms arms(const std::vector<Node>& nodes, const std::function<std::string(const ValueOption&)>& value,
          const std::function<std::string(const Node&)>& candidates) {
    Arms a;
    for (const auto& n : nodes) {
        for (const auto& v : n.takes_value)
            for (const auto& name : v.names)
                a.values += fmt::format("        {}) {}; return ;;\n", quoted(n.path + "|" + name), value(v));
        a.commands += fmt::format("        {}) candidates={}; files={} ;;\n", quoted(n.path), candidates(n),
                                  n.positional_files ? 1 : 0);
    }
    return a;
}

std::string bash_script(const std::vector<Node>& nodes) {
    auto value = [](const ValueOption& v) -> std::string {
        if (v.values.files) return "COMPREPLY=($(compgen -f -- \"$cur\"))";
        if (v.values.choices.empty()) return "COMPREPLY=()";
        return fmt::format("COMPREPLY=($(compgen -W {} -- \"$cur\"))", quoted(joined(v.values.choices)));
    };
    auto candidates = [](const Node& n) {
        std::vector<std::string> w;
        for (const auto& [word, desc] : n.words) w.push_back(word);
        return quoted(joined(w));
    };
    Arms a = arms(nodes, value, candidates);
    return fmt::format(R"(# bash completion for exitbench; generated by `exitbench completion bash`.
_exitbench() {{
    local cur prev words cword cmd="" i files=0 candidates
    if declare -F _get_comp_words_by_ref >/dev/null; then
        _get_comp_words_by_ref -n : cur prev words cword  # test names hold colons
    else
        cur=${{COMP_WORDS[COMP_CWORD]}}; prev=${{COMP_WORDS[COMP_CWORD-1]}}
        words=("${{COMP_WORDS[@]}}"); cword=$COMP_CWORD
    fi
    for ((i = 1; i < cword; i++)); do
{}    done
    case "$cmd|$prev" in
{}    esac
    case "$cmd" in
{}    esac
    COMPREPLY=($(compgen -W "$candidates" -- "$cur"))
    [ "$files" = 1 ] && [[ $cur != -* ]] && COMPREPLY+=($(compgen -f -- "$cur"))
    declare -F __ltrim_colon_completions >/dev/null && __ltrim_colon_completions "$cur"
    return 0
}}
complete -F _exitbench exitbench
)",
                       path_arms(nodes, "${words[i]}"), a.values, a.commands);
}

std::string zsh_script(const std::vector<Node>& nodes) {
    auto value = [](const ValueOption& v) -> std::string {
        if (v.values.files) return "_files";
        if (v.values.choices.empty()) return "_message " + quoted(v.placeholder);
        return "compadd -- " + joined(v.values.choices);
    };
    auto candidates = [](const Node& n) {
        std::vector<std::string> w;
        for (const auto& [word, desc] : n.words) {
            std::string escaped;  // _describe takes the first bare colon as the separator
            for (char c : word) escaped += c == ':' ? std::string("\\:") : std::string(1, c);
            w.push_back(quoted(escaped + ":" + desc));
        }
        return "(" + joined(w) + ")";
    };
    Arms a = arms(nodes, value, candidates);
    return fmt::format(R"(#compdef exitbench
# zsh completion for exitbench; generated by `exitbench completion zsh`.
_exitbench() {{
    local cmd="" i files=0 prev=${{words[CURRENT-1]}}
    local -a candidates
    for ((i = 2; i < CURRENT; i++)); do
{}    done
    case "$cmd|$prev" in
{}    esac
    case "$cmd" in
{}    esac
    _describe -t commands exitbench candidates
    [[ $files == 1 ]] && _files
    return 0
}}
_exitbench "$@"
)",
                       path_arms(nodes, "${words[i]}"), a.values, a.commands);
}

} // namespace

std::string completion_script(std::string_view shell) {
    if (shell == "bash") return bash_script(tree());
    if (shell == "zsh") return zsh_script(tree());
    throw UsageError(fmt::format("completion is written for bash or zsh, not '{}'", shell));
}

namespace {

class CompletionCommand : public Command {
public:
    explicit CompletionCommand(CLI::App& root)
        : Command(root.add_subcommand("completion", "print a bash or zsh completion script")) {
        app_->add_option("shell", shell_, "bash or zsh")->required();
    }
    int run(const Context&) override {
        write_stdout(completion_script(shell_));
        return kOk;
    }
    bool polls() const override { return false; }

private:
    std::string shell_;
};

} // namespace

std::unique_ptr<Command> completion_command(CLI::App& root) { return std::make_unique<CompletionCommand>(root); }

} // namespace eb::cli
