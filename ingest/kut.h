// `import kut`: which files make which run. The logs of one kvm-unit-tests
// run_tests.sh invocation (its logs/ directory) are one run, so `compare`
// lines their tests up against another run's; any other file is a run of
// its own.
#pragma once
#include <string>
#include <vector>

#include "suite/result.h"

namespace eb::ingest {

enum class KutGrouping {
    Auto,     // run_tests.sh logs of one directory (or a directory given): one run; other files one each
    OneRun,   // every file given: one run (--one-run)
    PerFile,  // every file a run of its own (--per-file)
};

struct KutImport {
    suite::RunReport run;
    std::string name;  // what it came from, as printed: the file, or "N logs of DIR"
};

// Every file read and checked before anything is returned: bad input is a
// one-line InputError naming the file (two files, for a test both hold).
// A directory stands for its run_tests.sh logs of vmexit.flat (*.log);
// `notes` gets a line for each directory's other logs, which are skipped.
// The runs' provenance says what was imported, and nothing of a host: the
// caller adds this tool's side (lab::import_kut).
std::vector<KutImport> kut_imports(const std::vector<std::string>& args, KutGrouping g, std::string& notes);

} // namespace eb::ingest
