// exitbench as a kselftest collection: DIR/exitbench/run_exitbench.sh (a
// KTAP run with kselftest's exit status) and its `settings` file (the
// timeout: kselftest's 45 s default would cut a suite short), listed in
// DIR/kselftest-list.txt, so that an installed kselftest tree's
// run_kselftest.sh runs it as it runs any collection.
#pragma once
#include <string>
#include <vector>

namespace eb::lab {

inline constexpr const char* kKselftestCollection = "exitbench";
inline constexpr const char* kKselftestScript = "run_exitbench.sh";

struct KselftestCollection {
    std::string dir;                    // the kselftest tree (INSTALL_PATH)
    unsigned timeout_s = 0;             // settings' timeout
    std::string binary = "/proc/self/exe";  // the exitbench the script runs, made an absolute path
    std::vector<std::string> run_args;  // after `exitbench run --format ktap --no-save`
};

// The run script's text.
std::string kselftest_script(const KselftestCollection& c);

struct KselftestInstalled {
    std::string script, settings, list;
    bool newly_listed = false;  // kselftest-list.txt gained the entry (else it had it)
};

// Writes the collection, each file atomically (sys::write_file). Throws
// InputError for a DIR that is not a directory, HostError when a file
// cannot be written.
KselftestInstalled install_kselftest(KselftestCollection c);

} // namespace eb::lab
