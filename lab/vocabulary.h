// The words the use cases speak: the data their functions take and return,
// and how a value of them is spelled on a command line. cli/ names these
// here, under lab::, and nothing below lab/ (tests/layering.sh checks both),
// so it can parse and print what lab/ returns but not do lab/'s work. Types
// and value spellings only: a function that does work is declared by the use
// case it belongs to.
#pragma once
#include "guest/abi.h"
#include "history/store.h"
#include "profile/analyze.h"
#include "profile/host_profile.h"
#include "profile/record.h"
#include "stats/calibration.h"
#include "stats/summary.h"
#include "suite/calibration.h"
#include "suite/compare.h"
#include "suite/gate.h"
#include "suite/knobs.h"
#include "suite/result.h"
#include "suite/runner.h"
#include "suite/spec.h"
#include "vmm/cpuid_features.h"

namespace eb::lab {

// A run and its tests (suite/result.h).
using suite::headline;
using suite::kEmulatedNote;
using suite::RunReport;
using suite::RunSettings;
using suite::Status;
using suite::status_name;
using suite::TestResult;
using suite::TestSpec;
// A comparison, its gate and the calibration that plans one (suite/).
using suite::Calibration;
using suite::ComparisonReport;
using suite::GateOutcome;
using suite::kPlanTarget;
// How the run options' values are spelled.
using suite::kApicModes;
using suite::parse_efer;
using suite::parse_msr_knob;
using vmm::parse_cpuid_edits;
inline constexpr uint64_t kMaxPerExitIterations = abi::kSampleMax;  // the guest's sample buffer
inline constexpr uint32_t kMaxVcpus = abi::kMaxVcpus;
inline constexpr uint32_t kMaxKnobs = abi::kMaxKnobs;
// A profile of the exits, and its options (profile/).
using profile::kSortKeys;
using profile::Mode;
using profile::mode_name;
using profile::parse_mode;
using ProfileOptions = profile::Options;
using ProfileReport = profile::Report;
using profile::ReasonChange;
using profile::RecordOptions;
using profile::TestHostProfile;
// The history's handle and its rows (history/store.h).
using history::Store;
// Figures as the tables print them (stats/).
using stats::Component;
using stats::median;

} // namespace eb::lab
