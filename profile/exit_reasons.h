// Names for kvm_exit's exit_reason and kvm_userspace_exit's reason, as the
// kernel's VMX_EXIT_REASONS / SVM_EXIT_REASONS / kvm_trace_exit_reason tables
// (and so perf kvm stat) print them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace eb::profile {

// isa is "vmx" or "svm" (case-insensitive); anything else names nothing.
// VMX: uppercase ("EPT_VIOLATION"), looked up on the basic reason (bits 15:0)
// when only architectural flag bits (27 enclave, 28 pending MTF, 29 from VMX
// root, 31 failed VM-entry) are set above it; those show the full code, e.g.
// "INVALID_STATE(0x80000021)". Any other upper bit makes the code unknown
// rather than mislabelled (software backends put their own codes there).
// SVM: lowercase ("npf", "hlt", "io" for IOIO, "interrupt" for INTR), exact
// match; -1 as a 32- or 64-bit value is "invalid_guest_state".
// An unknown code is its hex number, e.g. "0x1234" - never a bare "UNKNOWN".
std::string exit_reason_name(std::string_view isa, uint64_t code);

// The reverse, for text read back (perf's tables, perf script): the code
// exit_reason_name gives `name` for, or the number of a "0x1234" name.
std::optional<uint64_t> exit_reason_code(std::string_view isa, std::string_view name);

// kvm_userspace_exit's reason: KVM_EXIT_* without the prefix ("IO", "MMIO",
// "X86_WRMSR", from kvm/exit.h's table), else hex.
std::string userspace_exit_name(uint64_t reason);

} // namespace eb::profile
