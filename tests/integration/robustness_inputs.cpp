// The robustness table's input rows: arguments, result files, kvm-unit-tests
// logs, perf text, perf.data, history databases and export targets, each
// tried through the real binary (no KVM needed).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "robustness.h"
#include "tests/paths.h"

namespace fs = std::filesystem;
using nlohmann::json;
using Args = std::vector<std::string>;

namespace eb::robust {

void tally(Row& row, const std::string& what, const CliResult& r, const std::vector<int>& expected, int sent) {
    // The statuses the exit tables document: every command's, and bisect-step's 125 and 128 (git bisect run's).
    static const std::set<int> documented{0, 1, 2, 3, 4, 5, 125, 128, 130};
    ++row.inputs;
    bool crash = r.term_signal ? r.term_signal != sent : !documented.count(r.rc);
    bool as_expected = std::find(expected.begin(), expected.end(), r.rc) != expected.end() ||
                       (sent && r.term_signal == sent);
    bool error_line = (r.rc != 2 && r.rc != 3 && r.rc != 128) || r.term_signal ||
                      (std::count(r.err.begin(), r.err.end(), '\n') == 1 && r.err.back() == '\n');
    bool filtered = (r.out + r.err).find_first_of("\x1b\x07") == std::string::npos;
    if (crash) ++row.crashes;
    if (!crash && !(as_expected && error_line && filtered)) ++row.wrong;
    if (crash || !(as_expected && error_line && filtered))
        row.why.push_back(what + ": status " + std::to_string(r.rc) + ", signal " + std::to_string(r.term_signal) +
                          ": " + r.err.substr(0, 300));
}

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name, std::ios::binary) << text;
    return dir + "/" + name;
}

std::string perf_fixture(const std::string& name) { return eb::test::fixtures_dir() + "/perf/" + name; }

namespace {

std::string junk(size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += char(i * 37 % 256);
    return s;
}

// Special files every file-reading row tries.
std::vector<std::string> special_files(const std::string& dir) {
    auto fifo = dir + "/fifo";
    if (!fs::exists(fifo)) ::mkfifo(fifo.c_str(), 0600);
    fs::create_directories(dir + "/a-dir");
    std::error_code ec;
    fs::create_symlink("nowhere/x", dir + "/dangling", ec);
    fs::create_symlink("loop-b", dir + "/loop-a", ec);
    fs::create_symlink("loop-a", dir + "/loop-b", ec);
    fs::create_symlink(fifo, dir + "/to-fifo", ec);
    return {fifo, dir + "/a-dir", dir + "/dangling", dir + "/loop-a", dir + "/to-fifo", "/dev/zero", "/dev/urandom",
            dir + "/missing"};
}

// An exitbench result file of an imported run: `log` imported into a store of its own.
std::string result_of(const std::string& dir, const std::string& name, const std::string& log) {
    auto db = dir + "/" + name + ".db";
    run_cli({"import", "kut", log, "--db", db});
    return write_file(dir, name + ".json", run_cli({"history", "export", "1", "--json", "--db", db}).out);
}

} // namespace

Row arguments_row(const std::string&) {
    Row row{"arguments"};
    const std::vector<Args> bad = {
        {"\x1b[31mrun"}, {"run\n"}, {"run", "--\x1b]0;x\x07"}, {"run", "--repeats", std::string(100000, '9')},
        {"run", std::string(3000, 'x')}, {"run", "--repeats", "-1"}, {"run", "--format", "xml"}, {"\xff\xfe"},
        {"history", "show", "run:99999999999999999999"}, {"history", "list", "--since", "yesterday"},
        {"import", "kut"}, {"import", "kut", "--one-run", "--per-file", "x"}, {"history", "list", "--db", ""},
        {"run", "cpuid", "--db", ":memory:"}, {"compare", "a.json"}, {"report", "merge"}, {"profile", "report"},
        {"history", "trend", ""}, {"run", "cpuid", "--pin", "0,x"}, {"run", "--json", "/nonexistent/r.json"}};
    for (const auto& a : bad) tally(row, "argv " + a[0], run_cli(a), {2});
    tally(row, "--device /dev/null", run_cli({"--device", "/dev/null", "list"}), {3});
    return row;
}

Row result_files_row(const std::string& dir) {
    Row row{"result files"};
    auto good = result_of(dir, "good", kut_fixture("vmexit_cpuid.log"));
    auto doc = json::parse(std::ifstream(good));
    auto mutated = [&](const std::string& name, auto&& edit) {
        json d = doc;
        edit(d);
        return write_file(dir, name, d.dump());
    };
    std::vector<std::string> files = special_files(dir);
    for (auto [name, text] : std::vector<std::pair<std::string, std::string>>{
             {"empty.json", ""}, {"open.json", "{"}, {"deep.json", std::string(200000, '[')},
             {"foreign.json", R"({"schema": "x"})"}, {"junk.json", junk(4096)}, {"list.json", "[1, 2, 3]"}})
        files.push_back(write_file(dir, name, text));
    files.push_back(mutated("future.json", [](json& d) { d["schema_version"] = 99; }));
    auto sample = [](json& d) -> json& { return d["results"][0]["sessions"][0]["samples_cycles_per_iter"][0]; };
    files.push_back(mutated("negative.json", [&](json& d) { sample(d) = -1; }));
    files.push_back(mutated("zero.json", [&](json& d) { sample(d) = 0; }));
    files.push_back(mutated("no-results.json", [](json& d) { d.erase("results"); }));
    files.push_back(mutated("string-id.json", [](json& d) { d["results"][0]["name"] = 42; }));
    auto db = dir + "/results.db";
    for (const auto& f : files) {
        tally(row, "import run " + f, run_cli({"import", "run", f, "--db", db}), {2});
        tally(row, "compare " + f, run_cli({"compare", f, good}), {2});
        tally(row, "merge " + f, run_cli({"report", "merge", f, good}), {2});
    }
    tally(row, "import run good", run_cli({"import", "run", good, "--db", db}), {0});
    // Hostile but valid: the largest finite sample reads, and compares without overflow.
    auto huge = mutated("huge.json", [&](json& d) { sample(d) = 1e308; });
    tally(row, "a 1e308 sample", run_cli({"compare", huge, good}), {0});
    return row;
}

Row kut_logs_row(const std::string& dir) {
    Row row{"kvm-unit-tests logs"};
    auto db = dir + "/kut.db";
    std::vector<std::string> files = special_files(dir);
    for (auto [name, text] : std::vector<std::pair<std::string, std::string>>{
             {"empty.log", ""}, {"binary.log", junk(4096)}, {"zero.log", "cpuid 0\n"}, {"neg.log", "cpuid -5\n"},
             {"wide.log", "cpuid 99999999999\n"}, {"words.log", "enabling apic\npaging enabled\n"},
             {"timeout-only.log", "qemu-system-x86_64: terminating on signal 15\n"},
             {"nul.log", std::string("cpuid 5\0", 8)}})
        files.push_back(write_file(dir, name, text));
    auto big = dir + "/big.log";
    fs::resize_file(write_file(dir, "big.log", "cpuid 5\n"), (64u << 20) + 1);  // sparse: cheap to make
    files.push_back(big);
    for (const auto& f : files) tally(row, "import kut " + f, run_cli({"import", "kut", f, "--db", db}), {2});
    auto logs = dir + "/logs";
    fs::create_directories(logs);
    fs::copy_file(kut_fixture("vmexit_cpuid.log"), logs + "/vmexit_cpuid.log");
    fs::copy_file(kut_fixture("vmexit_cpuid.log"), logs + "/vmexit_cpuid_twice.log");
    tally(row, "a test in two logs", run_cli({"import", "kut", logs, "--db", db}), {2});
    tally(row, "--one-run duplicate", run_cli({"import", "kut", "--one-run", kut_fixture("vmexit-serial.log"),
                                               kut_fixture("vmexit_ipi.log"), "--db", db}), {2});
    // Hostile but valid: an ESC in a file name and a label, shown filtered.
    auto esc = dir + "/\x1b[31mred.log";
    fs::copy_file(kut_fixture("vmexit_ipi.log"), esc);
    tally(row, "ESC in a name", run_cli({"import", "kut", esc, "--label", "L\x1b[2J", "--note", "\x07", "--db", db}), {0});
    tally(row, "history list of it", run_cli({"history", "list", "--db", db}), {0});
    tally(row, "history show of it", run_cli({"history", "show", "1", "--db", db}), {0});
    return row;
}

Row perf_text_row(const std::string& dir) {
    Row row{"perf kvm stat text"};
    std::ifstream in(perf_fixture("report-vmexit.txt"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto line_of = [&](const std::string& key) {
        auto at = text.find(key);
        auto start = text.rfind('\n', at) + 1;
        return text.substr(start, text.find('\n', at) - start + 1);
    };
    auto cpuid = line_of("   cpuid ");
    std::string dup = text, wide = text, neg = text;
    dup.insert(dup.find(cpuid), cpuid);
    wide.replace(wide.find(" 800 "), 5, " 9007199254740993 ");
    neg.replace(neg.find(" 800 "), 5, " -800 ");
    std::vector<std::string> files = special_files(dir);
    for (auto [name, t] : std::vector<std::pair<std::string, std::string>>{
             {"empty.txt", ""}, {"binary.txt", junk(4096)}, {"dup.txt", dup}, {"wide.txt", wide}, {"neg.txt", neg}})
        files.push_back(write_file(dir, name, t));
    files.push_back(perf_fixture("perf.data.gz"));
    for (const auto& f : files) tally(row, "import perf-kvm " + f, run_cli({"import", "perf-kvm", f}), {2});
    tally(row, "the real table", run_cli({"import", "perf-kvm", perf_fixture("report-vmexit.txt")}), {0});
    // Half the table is an excerpt, as a mail quotes one: read, and said to be one.
    auto cut = run_cli({"import", "perf-kvm", write_file(dir, "cut.txt", text.substr(0, text.size() / 2))});
    tally(row, "an excerpt", cut, {0});
    if (cut.out.find("an excerpt") == std::string::npos) row.why.push_back("the cut table is not called an excerpt: " + cut.out);
    return row;
}

Row perf_data_row(const std::string& dir) {
    Row row{"perf.data"};
    std::vector<std::string> files = special_files(dir);
    files.push_back(write_file(dir, "junk.data", junk(4096)));
    files.push_back(write_file(dir, "empty.data", ""));
    files.push_back(write_file(dir, "magic-only.data", "PERFILE2" + junk(64)));
    files.push_back(perf_fixture("report-vmexit.txt"));
    files.push_back("-");
    for (const auto& f : files)
        tally(row, "profile import " + f, run_cli({"profile", "import", f, "-o", dir + "/out.trace"}), {2, 3});
    // The real one: 0 with perf installed, 3 ("apt-get install linux-perf") without.
    auto real = dir + "/perf.data";
    std::system(("gzip -dc " + perf_fixture("perf.data.gz") + " > " + real).c_str());
    tally(row, "the real perf.data", run_cli({"profile", "import", real, "-o", dir + "/real.trace"}), {0, 3});
    tally(row, "a trace to /dev/full", run_cli({"profile", "import", real, "-o", "/dev/full"}), {2, 3});
    return row;
}

} // namespace eb::robust
