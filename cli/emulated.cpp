#include "cli/emulated.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/app.h"
#include "cli/boot.h"
#include "cli/emit.h"
#include "cli/errors.h"
#include "lab/emulated.h"
#include "lab/initramfs.h"
#include "report/sanitize.h"
#include "lab/vocabulary.h"
#include "sys/file.h"

namespace eb::cli {

namespace {

// A boot of an emulated command: TCG with an SVM CPU, two vCPUs (the IPI
// tests' minimum), and an hour for a whole suite under emulation.
BootArgs emulated_boot(const std::string& kernel, std::vector<std::string> args) {
    BootArgs b;
    b.kernel = lab::emulation_kernel(kernel);
    b.machine.accel = "tcg";
    b.machine.cpus = "2";
    b.machine.timeout = "3600s";
    b.args = std::move(args);
    return b;
}

} // namespace

std::vector<std::string> guest_words(const std::vector<std::string>& argv, const std::string& command,
                                     bool drop_format) {
    static const std::set<std::string> flags{"--emulated", "--no-save"};
    std::set<std::string> valued{"--kernel", "--device", "--json", "--db", "--label", "--note"};
    if (drop_format) valued.insert("--format");
    size_t at = 1;
    for (; at < argv.size() && argv[at] != command; ++at)
        if (argv[at] == "--device") ++at;  // the root's options come first
    std::vector<std::string> out;
    for (size_t i = at; i < argv.size(); ++i) {
        const std::string& w = argv[i];
        std::string name = w.substr(0, w.find('='));
        bool exported = name.starts_with("--export-");
        if (flags.count(w)) continue;
        if (valued.count(name) || exported) {
            if (name == w) ++i;  // "--json FILE": its value goes too
            continue;
        }
        out.push_back(w);
    }
    return out;
}

bool any_export(const ExportPaths& e) {
    for (const auto& [_, path] : e)
        if (!path.empty()) return true;
    return false;
}

int run_emulated(const RunArgs& a, const std::atomic<bool>& interrupt) {
    auto b = emulated_boot(a.kernel, guest_words(a.argv, "run", true));
    b.json = a.json;
    b.db = a.db;
    b.label = a.label;
    b.note = a.note;
    b.no_save = a.no_save;
    b.exports = a.exports;
    b.format = a.format;
    return cmd_boot(b, interrupt);
}

int relay_emulated(const std::vector<std::string>& argv, const Relay& r, const std::atomic<bool>& interrupt) {
    if (r.exports)
        throw UsageError(fmt::format("{} --emulated brings back its stdout and --json, not --export-FORMAT files: "
                                     "export from that JSON, or run --emulated, whose every output comes back",
                                     r.command));
    if (!r.json.empty()) require_writable(r.json);
    auto words = guest_words(argv, r.command, false);
    if (r.saves) words.push_back("--no-save");
    if (!r.json.empty()) words.insert(words.end(), {"--json", lab::kGuestResult});
    auto b = emulated_boot(r.kernel, words);
    auto spec = boot_spec(b.kernel, b.append, b.modprobe, b.machine, b.args);
    spec.raw_result = !r.json.empty();
    auto plan = lab::plan_boot(spec);
    note(plan.accel_why);
    lab::Booter booter(plan);
    auto o = booter.boot(interrupt);
    print_lines(stderr, o.err);
    if (o.interrupted) return kInterrupted;
    if (!o.ok()) {
        fmt::print(stderr, "exitbench: {}\n", boot_line(plan, o));
        return kHost;
    }
    note(boot_line(plan, o));
    bool human = r.format == "table" || r.format == "text" || r.format == "markdown";
    write_stdout(o.out + (human ? fmt::format("note: {} (kvm_amd nested under QEMU TCG; {})\n",
                                              lab::kEmulatedNote, plan.machine())
                                : ""));
    if (r.saves) note("--emulated: the runs stay in the guest, not in this host's history");
    if (!r.json.empty()) {
        if (o.result_json.empty()) {
            fmt::print(stderr, "exitbench: error: the command inside wrote no JSON for {}\n",
                       report::printable(r.json));
            return kHost;
        }
        // The JSON says so too: a figure in it is QEMU TCG's.
        std::string text = o.result_json;
        try {
            auto doc = nlohmann::json::parse(text);
            doc["execution"] = "emulated";
            doc["warnings"].push_back(fmt::format("{} (kvm_amd nested under QEMU TCG; {})", lab::kEmulatedNote,
                                                  plan.machine()));
            text = doc.dump(2) + "\n";
        } catch (const nlohmann::json::exception&) {  // kept as written: the guest's own words
        }
        sys::write_file(r.json, text);
    }
    return o.guest_rc < 0 ? kHost : o.guest_rc;
}

} // namespace eb::cli
