// A run or a comparison as CI test cases: what KTAP and JUnit both report.
// One case per test (a run) or per test and configuration (a compare); the
// figures are the subject's Grid cells (report/grids.h), so every format
// shows the same columns under the same names.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "report/exporter.h"

namespace eb::report {

// XFail: a failure the backend's known limitation explains (kselftest's
// XFAIL, suite::expected_failure): shown with its reason, failing nothing.
enum class Outcome { Pass, Fail, Skip, XFail };

struct CiCase {
    std::string name;      // the test (run) or the configuration's label (compare)
    Outcome outcome = Outcome::Pass;
    std::string status;    // exitbench's own status name
    std::string reason;    // why skipped or failed (may span lines); else a detail worth showing
    std::vector<std::pair<std::string, std::string>> figures;  // non-empty grid cells, column -> value
    double seconds = -1;   // wall time, when known
    // The KTAP directive's text when it is not the reason's first line: the
    // known limitation of an expected failure, the watchdog's time of a hang.
    std::string directive_text = {};
};

// A run's tests, or one compared test with a case per configuration.
struct CiGroup {
    std::string name;      // "" for a run; the test's name in a compare
    std::vector<CiCase> cases;
    // A gated compare: the first case is the reference the others are tested
    // against, so the test is a skip when every other case is one.
    bool gated = false;
    // Fail if any case failed, Skip if all (gated: all but the reference) skipped, else Pass.
    Outcome outcome() const;
    std::string skip_reason() const;
};

struct CiReport {
    std::string title;                // "exitbench run" / "exitbench compare"
    std::vector<std::string> header;  // what ran, where: one line each
    std::vector<std::string> notes;   // warnings, advice, interruption
    std::vector<CiGroup> groups;      // a run: one group; a compare: one per test
    bool nested = false;              // compare: each group is a test with configurations
    std::string timestamp;            // ISO 8601 UTC of the run, when known
    std::string hostname;
};

CiReport ci_report(const suite::RunReport& r);
CiReport ci_report(const Comparison& c);

// How an exitbench status reads in CI: failures fail, a skip is a skip, and
// an interrupted test failed to finish.
Outcome outcome_of(const std::string& status_name);

} // namespace eb::report
