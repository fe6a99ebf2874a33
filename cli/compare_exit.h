// compare's exit status once a comparison exists, in one order of
// precedence: the gate decides first, so no later failure (an export, the
// save, a Ctrl-C after the last round) can hide a regression.
#pragma once
#include <optional>
#include <string>

namespace eb::cli {

struct CompareEnd {
    std::optional<int> gate;   // --fail-if-slower's status (apply_gate), decided before any output
    bool written = true;       // stdout's table, every export and the HTML
    bool saved = true;         // every live run saved to the history
    bool interrupted = false;  // SIGINT, SIGTERM or SIGHUP during the command
    bool empty = false;        // no test to compare
};

// The first that holds, in the order of kCompareExitTable.
int compare_exit(const CompareEnd& e);
// The same, and when the gate's 1 stands over another failure, a line on
// stderr that says the other too (`unsaved` names what could not be saved).
int compare_exit_said(const CompareEnd& e, const char* unsaved);

// The table, as help and the man page print it.
inline constexpr const char* kCompareExitTable =
    "\nExit status:\n"
    "The first that holds (the gate is decided before anything is written or saved):\n"
    "  2    bad usage or input (nothing compared)\n"
    "  3    the host cannot run the configurations (live; nothing compared)\n"
    "  70   an internal error (a bug; its text is printed)\n"
    "  1    --fail-if-slower: a regression; it stands even when an export, the save or a signal also failed\n"
    "       (they are said on stderr)\n"
    "  3    an export, the HTML or stdout could not be written\n"
    "  5    a live run could not be saved to the history (kept in a file, named)\n"
    "  130  interrupted (what finished is compared and written, not saved)\n"
    "  4    --fail-if-slower: no regression, but a test was not testable\n"
    "  1    no test to compare\n"
    "  0    otherwise (with --format ktap: 1 when a configuration failed, else 4 when every test was skipped)\n";

} // namespace eb::cli
