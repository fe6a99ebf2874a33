// The robustness table's rows: each hostile input class tried through the
// real binary, counted the same way (robustness_test.cpp prints the table).
#pragma once
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.h"

namespace eb::robust {

struct Row {
    explicit Row(std::string n) : name(std::move(n)) {}
    std::string name;
    int inputs = 0;      // exitbench invocations on a hostile input
    int faults = 0;      // faults injected: signals, a full disk, a held lock, a reader gone
    int concurrent = 0;  // runs written while other writers wrote to the same store
    int lost = 0;        // runs said to be saved (or present before) that are not in the store
    int crashes = 0;     // a death by a signal the test did not send, or an exit status outside 0-5, 130
    int wrong = 0;       // another status than expected, an error of more than one line, ESC or BEL shown
    std::string skipped; // why the row did not run (it needs /dev/kvm, root, ...)
    std::string note;    // what the row did, in counts
    std::vector<std::string> why;  // what each wrong or crash was, for the failure message
};

// Counts one invocation. `expected` are the statuses it may end with;
// `sent` the signal the test sent it (0: none), whose death is no crash.
void tally(Row& row, const std::string& what, const CliResult& r, const std::vector<int>& expected, int sent = 0);

// Runs SQL statements on the store at `db` behind exitbench's back (errors ignored).
void sql(const std::string& db, const char* statements);
// Whether process `pid` has a KVM VM open: a run is mid-work.
bool vm_open(int pid);

// A file of `text` in `dir`; its path.
std::string write_file(const std::string& dir, const std::string& name, const std::string& text);
std::string perf_fixture(const std::string& name);

// The rows of robustness_inputs.cpp, each given a scratch directory.
Row arguments_row(const std::string& dir);
Row result_files_row(const std::string& dir);
Row kut_logs_row(const std::string& dir);
Row perf_text_row(const std::string& dir);
Row perf_data_row(const std::string& dir);
Row db_files_row(const std::string& dir);
Row export_targets_row(const std::string& dir);

// Those of robustness_faults.cpp.
Row signals_row(const std::string& dir);
Row full_disk_row(const std::string& dir);
Row kvm_row(const std::string& dir);

// Those of robustness_saves.cpp: every save path under each fault.
Row locked_saves_row(const std::string& dir);
Row full_disk_saves_row(const std::string& dir);
Row read_only_saves_row(const std::string& dir);
Row concurrent_saves_row(const std::string& dir);
// The save rows take import's path, or, while `measuring_paths` is set, the
// paths of the commands that measure (run, calibrate, a live compare).
extern bool measuring_paths;
template <Row (*make)(const std::string&)>
Row measuring(const std::string& dir) {
    measuring_paths = true;
    Row r = make(dir);
    measuring_paths = false;
    r.name += " (measuring)";
    return r;
}

// robustness_options.cpp: every option of every command, hostile values.
Row option_fuzz_row(const std::string& dir);

} // namespace eb::robust
