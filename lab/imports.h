// The import use cases: other tools' results (kvm-unit-tests logs) and
// exitbench's kept files (a run, a calibration) read by ingest/ and saved to
// the history, marked as imported.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ingest/kut.h"

namespace eb::lab {

using ingest::KutGrouping;
using ingest::KutImport;

// kvm-unit-tests output as runs: host, boot and environment belong to the
// machine that ran it, which the files do not name, so they stay empty;
// the command line and this tool's version are this import's.
std::vector<KutImport> import_kut(const std::vector<std::string>& files, KutGrouping g,
                                  const std::vector<std::string>& argv, std::string& notes);
// exitbench result files, as they are.
std::vector<KutImport> import_result_files(const std::vector<std::string>& files);

// Saves `runs` in order to the store at `db_file`, calling `saved` after
// each (so a kill leaves no run saved unsaid); stops between two saves at
// `stop`. Returns how many were saved. InputError when the store refuses.
size_t save_imports(const std::string& db_file, const std::vector<KutImport>& runs, const std::string& label,
                    const std::string& note, const std::atomic<bool>& stop,
                    const std::function<void(const KutImport&, int64_t id)>& saved);

// A kept calibration file, checked, stored; its id. InputError.
int64_t import_calibration(const std::string& file, const std::string& db_file);

} // namespace eb::lab
