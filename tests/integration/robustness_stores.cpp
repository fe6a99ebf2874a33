// The robustness table's rows for history databases and export targets:
// a hostile store is refused and left as it was; an export never replaces a
// device, a FIFO or a link's target kind, and a full or closed output is an
// error, never a crash.
#include <filesystem>
#include <fstream>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "robustness.h"

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

namespace eb::robust {

void sql(const std::string& db, const char* statements) {
    sqlite3* h = nullptr;
    sqlite3_open(db.c_str(), &h);
    sqlite3_exec(h, statements, nullptr, nullptr, nullptr);
    sqlite3_close(h);
}

namespace {

std::string copy_of(const std::string& from, const std::string& to) {
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
    return to;
}

} // namespace

Row db_files_row(const std::string& dir) {
    Row row{"history databases"};
    auto good = dir + "/good.db";
    run_cli({"import", "kut", kut_fixture("vmexit_cpuid.log"), "--db", good});
    auto foreign = dir + "/foreign.db", future = copy_of(good, dir + "/future.db");
    sql(foreign, "CREATE TABLE t(x); INSERT INTO t VALUES(1)");
    sql(future, "PRAGMA user_version = 99");
    auto truncated = copy_of(good, dir + "/truncated.db");
    fs::resize_file(truncated, 2048);
    auto corrupt = copy_of(good, dir + "/corrupt.db");
    {
        std::fstream f(corrupt, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(4096);
        f << std::string(8192, '\x5a');
    }
    auto text = write_file(dir, "notes.txt", std::string(4096, 'x'));
    auto fifo = dir + "/db-fifo";
    ::mkfifo(fifo.c_str(), 0600);
    std::error_code ec;
    fs::create_symlink("/dev/null", dir + "/null-link.db", ec);
    fs::create_directories(dir + "/a-dir.db");
    std::vector<std::string> dbs = {foreign, future, truncated, corrupt, text, fifo, dir + "/null-link.db",
                                    dir + "/a-dir.db", "/dev/null", "/dev/zero", ":memory:", "file:x.db?mode=memory",
                                    "file:" + dir + "/y.db?nolock=1", ""};
    for (const auto& db : dbs) {
        std::string before = fs::is_regular_file(db, ec) ? slurp(db) : "";
        tally(row, "history list --db " + db, run_cli({"history", "list", "--db", db}), {2});
        tally(row, "import --db " + db, run_cli({"import", "kut", kut_fixture("vmexit_ipi.log"), "--db", db}), {2});
        tally(row, "history rm --db " + db, run_cli({"history", "rm", "1", "--yes", "--db", db}), {2});
        if (fs::is_regular_file(db, ec) && slurp(db) != before) ++row.lost, row.why.push_back(db + " changed");
    }
    // Reading and deleting create nothing where there was no store.
    for (const Args& a :
         {Args{"history", "list"}, Args{"history", "rm", "1", "--yes"}, Args{"history", "export", "1", "--json"}}) {
        auto args = a;
        args.insert(args.end(), {"--db", dir + "/typo/x.db"});
        tally(row, a[1] + " of a missing store", run_cli(args), {2});
    }
    if (fs::exists(dir + "/typo") || fs::exists(dir + "/y.db")) ++row.wrong, row.why.push_back("a store was created");
    tally(row, "the good store still reads", run_cli({"history", "show", "1", "--db", good}), {0});
    return row;
}

Row export_targets_row(const std::string& dir) {
    Row row{"export targets"};
    // Two imported runs that share tests: one run of run_tests.sh logs, one serial log.
    auto db = dir + "/exp.db", logs = dir + "/logs";
    fs::create_directories(logs);
    for (const char* f : {"vmexit_cpuid.log", "vmexit_ipi.log"}) fs::copy_file(kut_fixture(f), logs + "/" + f);
    run_cli({"import", "kut", logs, kut_fixture("vmexit-serial.log"), "--db", db});
    auto a = write_file(dir, "a.json", run_cli({"history", "export", "1", "--json", "--db", db}).out);
    auto b = write_file(dir, "b.json", run_cli({"history", "export", "2", "--json", "--db", db}).out);
    auto fifo = dir + "/out-fifo", node = dir + "/null", regular = write_file(dir, "regular.csv", "old\n");
    ::mkfifo(fifo.c_str(), 0600);
    bool root = geteuid() == 0 && ::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;
    std::error_code ec;
    fs::create_symlink(regular, dir + "/to-regular.csv", ec);
    fs::create_symlink("/dev/null", dir + "/to-null", ec);
    fs::create_symlink("nowhere/x", dir + "/dangling", ec);
    std::vector<std::pair<std::string, std::vector<int>>> targets = {
        {fifo, {3}}, {"/dev/full", {3}}, {dir + "/to-null", {0}}, {dir + "/dangling", {2}}, {dir, {2}},
        {dir + "/no/such/dir/x", {2}}, {"/proc/self/fd/1", {0}}, {"/dev/stdout", {0}}, {dir + "/to-regular.csv", {0}}};
    if (root) targets.push_back({node, {0}}), targets.push_back({"/dev/null", {0}});
    for (const auto& [t, codes] : targets) {
        tally(row, "compare --export-csv " + t, run_cli({"compare", a, b, "--export-csv", t}), codes);
        tally(row, "perf-kvm --json " + t, run_cli({"import", "perf-kvm", perf_fixture("report-vmexit.txt"), "--json", t}),
              codes);
    }
    if (root && !(null_device_intact(node) && null_device_intact("/dev/null")))
        ++row.wrong, row.why.push_back("a null device was replaced");
    if (!fs::is_symlink(dir + "/to-regular.csv")) ++row.wrong, row.why.push_back("a symlink was replaced");
    // The reader of stdout gone, and stdout full: faults, not crashes.
    CliOptions closed;
    closed.close_stdout = true;
    ++row.faults;
    tally(row, "stdout closed", run_cli({"compare", a, b, "--export-json", dir + "/c.json"}, closed), {0});
    CliOptions full;
    full.stdout_file = "/dev/full";
    ++row.faults;
    tally(row, "stdout full", run_cli({"compare", a, b, "--export-json", dir + "/d.json"}, full), {3});
    if (!fs::exists(dir + "/c.json") || !fs::exists(dir + "/d.json"))
        ++row.lost, row.why.push_back("an export was lost with stdout gone");
    return row;
}

} // namespace eb::robust
