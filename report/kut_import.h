// kvm-unit-tests' vmexit.flat output, read back: its "name cycles" and
// "name (skipped)" lines, on their own, in a run_tests.sh log (logs/*.log) or
// in a serial console log with other lines around them.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "suite/result.h"
#include "sys/error.h"

namespace eb::report {

// A file that holds no usable vmexit.flat result; the message is one line.
struct KutFormatError : InputError {
    using InputError::InputError;
};

struct KutLine {
    std::string name;               // exitbench's name (aliases resolved), as vmexit.flat's
    std::optional<int64_t> cycles;  // nullopt: "(skipped)", or did not finish
    size_t line = 0;                // 1-based, in the file
    std::string unfinished;         // non-empty: run_tests.sh ran it and it printed no result; why, from the log
};

struct KutOutput {
    std::vector<KutLine> tests;     // in file order
    size_t other_lines = 0;         // lines that are not results (banners, QEMU's command line)
};

// vmexit.flat prints cycles with %d: a result above this is not one it printed.
inline constexpr int64_t kKutMaxCycles = 2147483647;
// A console log bigger than this is not a vmexit.flat log.
inline constexpr size_t kKutMaxBytes = 64u << 20;

// A run_tests.sh log names its tests on QEMU's command line (-append): one
// that printed no result before QEMU was killed (its timeout) or ended is
// an unfinished test, with the log's reason. Throws KutFormatError for an
// empty or binary file, a file with neither a result line nor such a test,
// or a result whose number vmexit.flat cannot have printed.
KutOutput parse_kut(std::string_view text);

// Where an import came from, kept in the result's provenance.
struct KutSource {
    std::string file;    // as named on the command line
    std::string sha256;  // of its bytes
};

// One run: each test one session of one sample (a name seen again in the same
// file adds a repeat to that session, as it ran in the same VM). Skipped
// lines are skipped results, unfinished tests hung ones, as exitbench records
// a test that stops making progress. Provenance other than `imported` is left
// to the caller.
suite::RunReport kut_report(const KutOutput& k, const KutSource& src);

// Whether the text is a run_tests.sh log of vmexit.flat: its first line is
// QEMU's command line running x86/vmexit.flat with tests named by -append.
bool is_run_tests_log(std::string_view text);
// The kernel of a run_tests.sh log of another kvm-unit-tests test (e.g.
// "x86/emulator.flat"): its first line runs QEMU on a .flat that is not
// vmexit.flat. "" for anything else.
std::string other_kut_kernel(std::string_view text);

struct KutLog {
    KutSource src;
    KutOutput parsed;
};

// The SHA-256 of the logs' sha256sum lines ("SHA256  BASENAME\n"), sorted by
// base name: what `LC_ALL=C sha256sum NAME... | sha256sum` prints in their
// directory. One digest that names the set of logs.
std::string kut_logs_sha256(const std::vector<KutSource>& logs);

// The logs of one run_tests.sh invocation as one run: their tests together,
// `where` (their directory) and kut_logs_sha256 as the run's source, and each
// log's file, sha256 and tests kept in ImportSource::logs. A test held by
// two logs is a KutFormatError naming both files.
suite::RunReport kut_run_report(const std::vector<KutLog>& logs, const std::string& where);

} // namespace eb::report
