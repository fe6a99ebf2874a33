// What the history holds of one host, kernel and settings, as runs with
// their boot id and each test's session log medians: the calibrations' runs
// and the saved runs alike. Boot-level spreads are estimated from these.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "suite/calibration.h"

namespace eb::lab {

struct Record {
    std::string boot_id;
    std::map<std::string, std::vector<double>> session_logs;  // test -> its sessions' log medians
};

// Every run on record matching `id` (host, kernel, backend, CPU, settings);
// runs without a boot id are left out. Empty when the store is absent.
std::vector<Record> records(const std::string& db, const suite::CalibrationIdentity& id);

} // namespace eb::lab
