// Guest-state knobs as run options: guest MSR values (the BHI mitigation's
// SPEC_CTRL), guest EFER bits (EFER switching) and CPUID edits. Parsers throw InputError (sys/error.h) with a one-line reason.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace eb::suite {

struct MsrKnob {
    std::string name;   // as given, or the MSR's name
    uint32_t index = 0;
    uint64_t value = 0;
};

// "spec_ctrl=0x401", "0x48=1", "tsc_aux=7".
MsrKnob parse_msr_knob(const std::string& spec);
// MSR index by name (spec_ctrl, pred_cmd, tsc_aux, ...), or a number.
uint32_t parse_msr_index(const std::string& name);

struct EferKnob {
    std::optional<bool> nx, sce;
};
// "nx=off", "nx=on,sce=off".
EferKnob parse_efer(const std::string& spec);

} // namespace eb::suite
