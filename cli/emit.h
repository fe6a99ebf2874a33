// A command's output, the same way for every command: the --export-FORMAT
// files, the runs to save to the history, then stdout, in that order (a
// closed or full stdout must not cost the files or the saved runs).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/export.h"
#include "cli/history.h"
#include "report/exporter.h"
#include "lab/vocabulary.h"

namespace eb::cli {

// Where a command's result goes: stdout in its --format, and export files.
struct Outputs {
    std::unique_ptr<report::Exporter> to_stdout;
    std::vector<std::pair<std::string, std::string>> files;  // (format, file)
};
// Checked before anything runs (cli/export.h says what throws): the stdout
// format first, then the exports, `json_alias` being --json FILE.
Outputs plan_outputs(const std::string& format, const ExportPaths& exports, const std::string& json_alias,
                     report::Subject s);

// A run to save, and what to file it under.
struct ToSave {
    const lab::RunReport* run;
    std::string label, note;
};

struct Emitted {
    bool written = true;  // every export file
    bool saved = true;    // every run (each failure kept the result in a file, named)
};

// Writes the exports, saves `saves` to the history database `db`, then
// prints `stdout_text`, or when none is given the stdout format's rendering.
// Each failure is said on stderr and the rest still happen.
template <class Subject>
Emitted emit(const Outputs& out, const Subject& result, const std::string& db = "",
             const std::vector<ToSave>& saves = {}, const std::optional<std::string>& stdout_text = std::nullopt);

// --quiet: stderr then carries warnings, errors and the gate's lines only, no
// progress and no notes ("saved as run 3").
void set_quiet(bool on);
bool quiet();
// An informational line on stderr, "exitbench: LINE", unless --quiet.
void note(std::string_view line);

// Writes a command's output to stdout at once. A reader that went away
// (EPIPE: `| head`) silences the rest of the output without an error; any other
// failure throws HostError naming it.
void write_stdout(std::string_view text);
// Whether write_stdout has written anything yet.
bool stdout_written();
// At a command's end: what fmt or iostreams printed is flushed, and `rc`
// becomes a host error if stdout failed for another reason than its reader
// going away.
int finish_stdout(int rc);

template <class Subject>
Emitted emit(const Outputs& out, const Subject& result, const std::string& db, const std::vector<ToSave>& saves,
             const std::optional<std::string>& stdout_text) {
    Emitted e;
    e.written = write_exports(out.files, result);
    for (const auto& s : saves) e.saved = save_run(db, *s.run, s.label, s.note) && e.saved;
    write_stdout(stdout_text ? *stdout_text : out.to_stdout->render(result));
    return e;
}

} // namespace eb::cli
