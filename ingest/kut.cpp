#include "ingest/kut.h"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>

#include "ingest/input.h"
#include "report/kut_import.h"
#include "report/sha256.h"
#include "sys/error.h"

namespace eb::ingest {

namespace fs = std::filesystem;

namespace {

// A logs/ directory of a whole kvm-unit-tests run holds a few hundred.
constexpr size_t kMaxDirEntries = 100000;

struct Input {
    report::KutLog log;
    std::string group;  // inputs with the same non-empty group make one run
    std::string dir;    // the directory it is in, as named
};

report::KutOutput parse(const std::string& path, const std::string& text) {
    try {
        return report::parse_kut(text);
    } catch (const report::KutFormatError& e) {
        throw InputError(fmt::format("{}: {}", path, e.what()));
    }
}

std::string parent_of(const std::string& path) {
    auto p = fs::path(path).parent_path().string();
    return p.empty() ? "." : p;
}

// Where files of one directory meet: its absolute, normal path.
std::string dir_key(const std::string& dir) {
    std::error_code ec;
    auto abs = fs::absolute(dir, ec);
    return (ec ? fs::path(dir) : abs).lexically_normal().string();
}

// A directory given: its run_tests.sh logs of vmexit.flat, by name.
void add_directory(const std::string& dir, std::vector<Input>& out, std::string& notes) {
    std::error_code ec;
    std::vector<std::string> names;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (names.size() >= kMaxDirEntries)
            throw InputError(fmt::format("{}: more than {} files; not a run_tests.sh logs/ directory", dir,
                                         kMaxDirEntries));
        auto name = it->path().filename().string();
        if (name.ends_with(".log") && it->is_regular_file(ec)) names.push_back(name);
    }
    if (ec) throw InputError(fmt::format("cannot read {}: {}", dir, ec.message()));
    std::sort(names.begin(), names.end());
    std::string shown = dir.ends_with('/') && dir.size() > 1 ? dir.substr(0, dir.size() - 1) : dir;
    size_t taken = 0;
    for (const auto& name : names) {
        auto path = shown + "/" + name;
        auto text = read_input_file(path, report::kKutMaxBytes, "vmexit.flat log");
        if (!report::is_run_tests_log(text)) continue;  // another kvm-unit-tests test's log
        out.push_back({{{path, report::sha256_hex(text)}, parse(path, text)}, "dir:" + dir_key(dir), shown});
        ++taken;
    }
    if (taken == 0)
        throw InputError(fmt::format("{}: no run_tests.sh log of vmexit.flat in it (a *.log whose first line runs "
                                     "x86/vmexit.flat)", dir));
    if (taken < names.size())
        notes += fmt::format("{}: {} other log{} skipped (not vmexit.flat's)\n", shown, names.size() - taken,
                             names.size() - taken == 1 ? "" : "s");
}

std::vector<Input> read_inputs(const std::vector<std::string>& args, KutGrouping g, std::string& notes) {
    std::vector<Input> in;
    for (const auto& a : args) {
        std::error_code ec;
        if (fs::is_directory(a, ec)) {
            add_directory(a, in, notes);
            continue;
        }
        auto text = read_input_file(a, report::kKutMaxBytes, "vmexit.flat log");
        if (auto kernel = report::other_kut_kernel(text); !kernel.empty()) {  // logs/*.log of a whole run
            notes += fmt::format("{}: skipped: run_tests.sh's log of {}, not of vmexit.flat\n", a, kernel);
            continue;
        }
        bool grouped = report::is_run_tests_log(text);
        in.push_back({{{a, report::sha256_hex(text)}, parse(a, text)}, grouped ? "dir:" + dir_key(parent_of(a)) : "",
                      parent_of(a)});
    }
    if (in.empty()) throw InputError("no vmexit.flat output among the files: each is another test's log");
    for (size_t i = 0; i < in.size(); ++i) {
        if (g == KutGrouping::OneRun) in[i].group = "all";
        if (g == KutGrouping::PerFile || in[i].group.empty()) in[i].group = fmt::format("file:{}", i);
    }
    return in;
}

KutImport make_run(const std::vector<const Input*>& group) {
    if (group.size() == 1) return {report::kut_report(group[0]->log.parsed, group[0]->log.src), group[0]->log.src.file};
    std::vector<report::KutLog> logs;
    std::string where = group[0]->dir;
    for (const auto* in : group) {
        logs.push_back(in->log);
        if (in->dir != where) where.clear();
    }
    if (where.empty())  // logs of several directories (--one-run): named one by one
        for (const auto* in : group) where += (where.empty() ? "" : " ") + in->log.src.file;
    try {
        return {report::kut_run_report(logs, where), fmt::format("{} logs of {}", logs.size(), where)};
    } catch (const report::KutFormatError& e) {
        throw InputError(e.what());
    }
}

} // namespace

std::vector<KutImport> kut_imports(const std::vector<std::string>& args, KutGrouping g, std::string& notes) {
    auto in = read_inputs(args, g, notes);
    std::vector<std::string> order;  // groups, in the order they first appear
    for (const auto& i : in)
        if (std::find(order.begin(), order.end(), i.group) == order.end()) order.push_back(i.group);
    std::vector<KutImport> out;
    for (const auto& key : order) {
        std::vector<const Input*> group;
        for (const auto& i : in)
            if (i.group == key) group.push_back(&i);
        out.push_back(make_run(group));
    }
    return out;
}

} // namespace eb::ingest
