#include "cli/help.h"

#include <CLI/CLI.hpp>
#include <map>

#include "cli/compare_exit.h"
#include "cli/manual.h"
#include "cli/run_options.h"

namespace eb::cli {

namespace {

// One table for every option's placeholder but the run options' (their own
// table, cli/run_options.h), keyed by its longest name, so a new option on
// any command gets the same word as its namesakes.
const std::map<std::string, std::string, std::less<>>& placeholders() {
    static const std::map<std::string, std::string, std::less<>> m = {
        {"a", "OPTIONS"}, {"against", "last"}, {"alpha", "P"}, {"b", "OPTIONS"}, {"buffer-kb", "KiB"},
        {"command", "COMMAND"}, {"config", "LABEL=OPTIONS"}, {"db", "FILE"}, {"delay", "DURATION"},
        {"device", "PATH"}, {"duration", "DURATION"}, {"event", "EVENT"}, {"fail-if-slower", "PCT"},
        {"files", "FILE"}, {"format", "FORMAT"}, {"host", "HOST"}, {"id", "ID"}, {"input", "FILE"},
        {"inputs", "FILE|REF"}, {"json", "FILE"}, {"key", "KEY"}, {"label", "LABEL"}, {"name", "RECIPE"},
        {"note", "NOTE"}, {"output", "FILE"}, {"perf-data", "FILE"}, {"pid", "PID"}, {"precision", "PCT"},
        {"refs", "REF"}, {"rounds", "N"}, {"runs", "K"}, {"seed", "N"}, {"shell", "SHELL"}, {"since", "DATE"},
        {"sort", "KEY"}, {"target", "PCT"}, {"test", "TEST"}, {"tests", "TEST"}, {"than", "MICROSECONDS"},
        {"time-budget", "DURATION"}, {"traces", "FILE"}, {"vcpu", "N"}, {"vs", "FILE"},
        // exitbench boot, compare --kernel-a/-b, bisect-step
        {"kernel", "IMAGE"}, {"kernel-a", "IMAGE"}, {"kernel-b", "IMAGE"}, {"append", "ARGS"}, {"append-a", "ARGS"},
        {"append-b", "ARGS"}, {"modprobe", "'MODULE P=V ...'"}, {"modprobe-a", "'MODULE P=V ...'"},
        {"modprobe-b", "'MODULE P=V ...'"}, {"initrd", "FILE"}, {"modules", "DIR"}, {"accel", "auto|kvm|tcg"},
        {"cpus", "N"}, {"memory", "MIB"}, {"boot-timeout", "DURATION"}, {"boots", "N"}, {"loads", "N"}, {"module", "MODULE"}, {"guest-run", "OPTIONS"},
        {"good", "LABEL"}, {"args", "ARG"}, {"backend", "qemu|kexec"}, {"unit-dir", "DIR"}, {"add", "PATH"},
        // kselftest-install
        {"dir", "DIR"}, {"timeout", "DURATION"}, {"run_args", "RUN-ARG"},
    };
    return m;
}

// Examples per command path; every one must parse (tests/unit/help_test.cpp).
const std::map<std::string, std::vector<std::string>, std::less<>>& examples() {
    static const std::map<std::string, std::vector<std::string>, std::less<>> m = {
        {"", {"exitbench run", "exitbench run cpuid inl_from_qemu --sessions 5",
              "exitbench compare a1.json a2.json a3.json --vs b1.json b2.json b3.json", "exitbench profile record -a --duration 10s"}},
        {"list", {"exitbench list", "exitbench list --all"}},
        {"env", {"exitbench env", "exitbench --device /dev/kvm env"}},
        {"run", {"exitbench run", "exitbench run cpuid vmcall --sessions 5 --export-json r.json --export-html r.html",
                 "exitbench run tscdeadline_immed --guest-msr spec_ctrl=0x401 --label bhi-on",
                 "exitbench run inl_from_qemu --per-exit --format kut"}},
        {"compare", {"exitbench compare a1.json a2.json a3.json --vs b1.json b2.json b3.json",
                     "exitbench compare label:before label:after --fail-if-slower 2",
                     "exitbench compare cpuid --a '--guest-efer nx=off' --b '--guest-efer nx=on' --rounds 10",
                     "exitbench compare --against last"}},
        {"calibrate", {"exitbench calibrate cpuid inl_from_kernel",
                       "exitbench calibrate cpuid --runs 10 --sessions 3 --repeats 4 --target 0.5",
                       "exitbench calibrate cpuid --iterations 10000 --db lab.db"}},
        {"kselftest-install", {"exitbench kselftest-install /usr/lib/kselftests",
                               "exitbench kselftest-install ~/kselftest --timeout 1800s -- cpuid vmcall --sessions 5"}},
        {"recipe", {"exitbench recipe list", "exitbench recipe show bhi-spec-ctrl", "exitbench recipe run bhi-spec-ctrl"}},
        {"recipe list", {"exitbench recipe list", "exitbench recipe list | grep -i ipi"}},
        {"recipe show", {"exitbench recipe show bhi-spec-ctrl", "exitbench recipe show efer-switch | less"}},
        {"recipe run", {"exitbench recipe run efer-switch", "exitbench recipe run efer-switch --rounds 12",
                        "exitbench recipe run efer-switch --time-budget 60s --precision 1"}},
        {"history", {"exitbench history list", "exitbench history show 12", "exitbench history trend cpuid"}},
        {"history list", {"exitbench history list", "exitbench history list --label before-v2",
                          "exitbench history list --test cpuid --since 2026-11-01"}},
        {"history show", {"exitbench history show 12", "exitbench history show 12 --db lab.db"}},
        {"history export", {"exitbench history export 12 --json > run12.json",
                            "exitbench history export 12 --json --db lab.db | jq .results"}},
        {"history rm", {"exitbench history rm 12", "exitbench history rm 12 --yes"}},
        {"history trend", {"exitbench history trend cpuid", "exitbench history trend cpuid --host lab1"}},
        {"import", {"exitbench import kut logs/vmexit_cpuid.log", "exitbench import kut serial.log --label kut-6.12",
                    "exitbench import perf-kvm perf-kvm-stat.txt"}},
        {"import kut", {"exitbench import kut logs/",
                        "exitbench import kut logs/vmexit_*.log --label kut-6.12",
                        "exitbench import kut --per-file logs/vmexit_cpuid.log logs/vmexit_ipi.log",
                        "exitbench import kut serial.log --label kut-6.12 --note 'QEMU 7.2, -cpu host' --db lab.db"}},
        {"import run", {"exitbench import run history.db.unsaved-2026-01-02T030405Z-4242.json --db history.db",
                        "exitbench import run before.json after.json --label v2 --note 'from CI'"}},
        {"import calibration", {"exitbench import calibration history.db.unsaved-2026-01-02T030405Z-4242.json",
                                "exitbench import calibration lab.db.unsaved-2026-01-02T030405Z-4242.json --db lab.db"}},
        {"import perf-kvm", {"exitbench import perf-kvm perf-kvm-stat.txt",
                             "exitbench import perf-kvm vmexit.txt ioport.txt msr.txt --json peer.json",
                             "exitbench profile compare perf-kvm-stat.txt after.trace --event msr"}},
        {"profile", {"exitbench profile record -a --duration 10s -o perf.trace", "exitbench profile report -i perf.trace",
                     "exitbench profile live -a"}},
        {"profile record", {"exitbench profile record -a --duration 10s -o perf.trace",
                            "exitbench profile record -p 4242 --duration 30s -o vm.trace",
                            "exitbench profile record -o boot.trace -- qemu-system-x86_64 -accel kvm -kernel x86/vmexit.flat"}},
        {"profile report", {"exitbench profile report -i perf.trace",
                            "exitbench profile report -i perf.trace --event ioport --key time",
                            "exitbench profile report -i perf.trace --vcpu 0 --export-csv p.csv --export-html p.html"}},
        {"profile compare", {"exitbench profile compare before.trace after.trace",
                             "exitbench profile compare before.trace after.trace --event msr",
                             "exitbench profile compare perf-kvm-stat.txt after.trace --event ioport"}},
        {"profile live", {"exitbench profile live -a --once", "exitbench profile live -a --than 50"}},
        {"completion", {"exitbench completion bash > ~/.local/share/bash-completion/completions/exitbench",
                        "exitbench completion zsh > ~/.zfunc/_exitbench"}},
        {"report", {"exitbench report merge host1.json host2.json host3.json", "exitbench report merge results/*.json"}},
        {"report merge", {"exitbench report merge host1.json host2.json host3.json",
                          "exitbench report merge label:fleet --export-html fleet.html --export-csv fleet.csv",
                          "exitbench report merge lab/*.json --format markdown"}},
        {"profile import", {"exitbench profile import perf.data -o peer.trace",
                            "exitbench profile import /tmp/perf.data.guest --output nested.trace"}},
        {"profile cleanup", {"exitbench profile cleanup", "sudo exitbench profile cleanup"}},
        {"boot", {"exitbench boot --kernel /boot/vmlinuz-6.1.0-57-amd64 -- run cpuid -n 64 --sessions 1",
                  "exitbench boot --kernel bzImage --append 'spectre_bhi=off' --modprobe 'kvm_amd avic=1' --label bhi-off -- run cpuid",
                  "exitbench boot --kernel bzImage --add /srv/kvm/xapic_ipi_test --exec -- /srv/kvm/xapic_ipi_test"}},
        {"bisect-step", {"exitbench bisect-step --good good --kernel arch/x86/boot/bzImage --boots 3 --fail-if-slower 2 cpuid",
                         "exitbench bisect-step --good v6.12 --kernel bzImage --modules /tmp/mods/lib/modules/6.13.0 cpuid -n 64"}},
    };
    return m;
}

std::string longest_name(const CLI::Option& o) {
    if (!o.get_lnames().empty()) return o.get_lnames().back();
    if (o.get_positional()) return o.get_name(true);
    return o.get_snames().empty() ? "" : o.get_snames().front();
}

void finish(CLI::App& app) {
    for (CLI::Option* o : app.get_options()) {
        if (o->get_expected_max() == 0) continue;  // a flag: no value
        for (const auto& n : o->get_lnames()) {
            if (auto p = placeholder(n); !p.empty()) {
                o->type_name(p);
                break;
            }
        }
        if (o->get_lnames().empty()) o->type_name(placeholder(longest_name(*o)));
    }
    std::string text;
    if (const auto& ex = help_examples(path_of(app)); !ex.empty()) {
        text = "\nExamples:\n";
        for (const auto& e : ex) text += "  " + e + "\n";
    }
    // The exit statuses where they differ by command; the root's hold for the
    // rest (packaging/manpages.sh copies them into every page).
    if (path_of(app).empty()) text += exit_status_help("") + environment_help() + files_help();
    if (path_of(app) == "compare") text += kCompareExitTable;
    if (path_of(app) == "bisect-step") text += exit_status_help("bisect-step");
    if (!text.empty()) app.footer(text);
    for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) finish(*sub);
}

} // namespace

std::string path_of(const CLI::App& app) {
    std::string path;
    for (const CLI::App* a = &app; a->get_parent(); a = a->get_parent())
        path = path.empty() ? a->get_name() : a->get_name() + " " + path;
    return path;
}

std::string placeholder(const std::string& option_name) {
    if (option_name.rfind("export-", 0) == 0) return "FILE";
    if (const auto* o = find_run_option(option_name)) return o->placeholder;
    auto it = placeholders().find(option_name);
    return it == placeholders().end() ? "" : it->second;
}

const std::vector<std::string>& help_examples(const std::string& path) {
    static const std::vector<std::string> none;
    auto it = examples().find(path);
    return it == examples().end() ? none : it->second;
}

void finish_help(CLI::App& root) { finish(root); }

} // namespace eb::cli
