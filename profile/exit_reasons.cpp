#include "profile/exit_reasons.h"

#include <charconv>
#include <span>
#include <fmt/format.h>

#include "kvm/exit.h"

namespace eb::profile {

namespace {

struct Name {
    uint64_t code;
    const char* name;
};

// VMX basic exit reasons (Linux's VMX_EXIT_REASONS, plus OTHER_SMI which the
// kernel defines but leaves out of the table).
constexpr Name kVmx[] = {
    {0, "EXCEPTION_NMI"},        {1, "EXTERNAL_INTERRUPT"},   {2, "TRIPLE_FAULT"},
    {3, "INIT_SIGNAL"},          {4, "SIPI_SIGNAL"},          {6, "OTHER_SMI"},
    {7, "INTERRUPT_WINDOW"},     {8, "NMI_WINDOW"},           {9, "TASK_SWITCH"},
    {10, "CPUID"},               {12, "HLT"},                 {13, "INVD"},
    {14, "INVLPG"},              {15, "RDPMC"},               {16, "RDTSC"},
    {18, "VMCALL"},              {19, "VMCLEAR"},             {20, "VMLAUNCH"},
    {21, "VMPTRLD"},             {22, "VMPTRST"},             {23, "VMREAD"},
    {24, "VMRESUME"},            {25, "VMWRITE"},             {26, "VMOFF"},
    {27, "VMON"},                {28, "CR_ACCESS"},           {29, "DR_ACCESS"},
    {30, "IO_INSTRUCTION"},      {31, "MSR_READ"},            {32, "MSR_WRITE"},
    {33, "INVALID_STATE"},       {34, "MSR_LOAD_FAIL"},       {36, "MWAIT_INSTRUCTION"},
    {37, "MONITOR_TRAP_FLAG"},   {39, "MONITOR_INSTRUCTION"}, {40, "PAUSE_INSTRUCTION"},
    {41, "MCE_DURING_VMENTRY"},  {43, "TPR_BELOW_THRESHOLD"}, {44, "APIC_ACCESS"},
    {45, "EOI_INDUCED"},         {46, "GDTR_IDTR"},           {47, "LDTR_TR"},
    {48, "EPT_VIOLATION"},       {49, "EPT_MISCONFIG"},       {50, "INVEPT"},
    {51, "RDTSCP"},              {52, "PREEMPTION_TIMER"},    {53, "INVVPID"},
    {54, "WBINVD"},              {55, "XSETBV"},              {56, "APIC_WRITE"},
    {57, "RDRAND"},              {58, "INVPCID"},             {59, "VMFUNC"},
    {60, "ENCLS"},               {61, "RDSEED"},              {62, "PML_FULL"},
    {63, "XSAVES"},              {64, "XRSTORS"},             {67, "UMWAIT"},
    {68, "TPAUSE"},              {74, "BUS_LOCK"},            {75, "NOTIFY"},
    {76, "SEAMCALL"},            {77, "TDCALL"},              {84, "MSR_READ_IMM"},
    {85, "MSR_WRITE_IMM"},
};

// SVM exit codes (Linux's SVM_EXIT_REASONS; mwait_cond and rdpru are defined
// there but missing from the table).
constexpr Name kSvm[] = {
    {0x000, "read_cr0"},
    {0x002, "read_cr2"},
    {0x003, "read_cr3"},
    {0x004, "read_cr4"},
    {0x008, "read_cr8"},
    {0x010, "write_cr0"},
    {0x012, "write_cr2"},
    {0x013, "write_cr3"},
    {0x014, "write_cr4"},
    {0x018, "write_cr8"},
    {0x020, "read_dr0"},
    {0x021, "read_dr1"},
    {0x022, "read_dr2"},
    {0x023, "read_dr3"},
    {0x024, "read_dr4"},
    {0x025, "read_dr5"},
    {0x026, "read_dr6"},
    {0x027, "read_dr7"},
    {0x030, "write_dr0"},
    {0x031, "write_dr1"},
    {0x032, "write_dr2"},
    {0x033, "write_dr3"},
    {0x034, "write_dr4"},
    {0x035, "write_dr5"},
    {0x036, "write_dr6"},
    {0x037, "write_dr7"},
    {0x040 + 0, "DE excp"},
    {0x040 + 1, "DB excp"},
    {0x040 + 3, "BP excp"},
    {0x040 + 4, "OF excp"},
    {0x040 + 5, "BR excp"},
    {0x040 + 6, "UD excp"},
    {0x040 + 7, "NM excp"},
    {0x040 + 8, "DF excp"},
    {0x040 + 10, "TS excp"},
    {0x040 + 11, "NP excp"},
    {0x040 + 12, "SS excp"},
    {0x040 + 13, "GP excp"},
    {0x040 + 14, "PF excp"},
    {0x040 + 16, "MF excp"},
    {0x040 + 17, "AC excp"},
    {0x040 + 18, "MC excp"},
    {0x040 + 19, "XF excp"},
    {0x060, "interrupt"},
    {0x061, "nmi"},
    {0x062, "smi"},
    {0x063, "init"},
    {0x064, "vintr"},
    {0x065, "cr0_sel_write"},
    {0x066, "read_idtr"},
    {0x067, "read_gdtr"},
    {0x068, "read_ldtr"},
    {0x069, "read_rt"},
    {0x06a, "write_idtr"},
    {0x06b, "write_gdtr"},
    {0x06c, "write_ldtr"},
    {0x06d, "write_rt"},
    {0x06e, "rdtsc"},
    {0x06f, "rdpmc"},
    {0x070, "pushf"},
    {0x071, "popf"},
    {0x072, "cpuid"},
    {0x073, "rsm"},
    {0x074, "iret"},
    {0x075, "swint"},
    {0x076, "invd"},
    {0x077, "pause"},
    {0x078, "hlt"},
    {0x079, "invlpg"},
    {0x07a, "invlpga"},
    {0x07b, "io"},
    {0x07c, "msr"},
    {0x07d, "task_switch"},
    {0x07e, "ferr_freeze"},
    {0x07f, "shutdown"},
    {0x080, "vmrun"},
    {0x081, "hypercall"},
    {0x082, "vmload"},
    {0x083, "vmsave"},
    {0x084, "stgi"},
    {0x085, "clgi"},
    {0x086, "skinit"},
    {0x087, "rdtscp"},
    {0x088, "icebp"},
    {0x089, "wbinvd"},
    {0x08a, "monitor"},
    {0x08b, "mwait"},
    {0x08c, "mwait_cond"},
    {0x08d, "xsetbv"},
    {0x08e, "rdpru"},
    {0x08f, "write_efer_trap"},
    {0x090, "write_cr0_trap"},
    {0x094, "write_cr4_trap"},
    {0x098, "write_cr8_trap"},
    {0x0a2, "invpcid"},
    {0x0a5, "buslock"},
    {0x0a6, "idle-halt"},
    {0x400, "npf"},
    {0x401, "avic_incomplete_ipi"},
    {0x402, "avic_unaccelerated_access"},
    {0x403, "vmgexit"},
    {0x80000001, "vmgexit_mmio_read"},
    {0x80000002, "vmgexit_mmio_write"},
    {0x80000003, "vmgexit_nmi_complete"},
    {0x80000004, "vmgexit_ap_hlt_loop"},
    {0x80000005, "vmgexit_ap_jump_table"},
    {0x80000010, "vmgexit_page_state_change"},
    {0x80000011, "vmgexit_guest_request"},
    {0x80000012, "vmgexit_ext_guest_request"},
    {0x80000013, "vmgexit_ap_creation"},
    {0x8000fffd, "vmgexit_hypervisor_feature"},
    {0xffffffff, "invalid_guest_state"},  // SVM_EXIT_ERR (-1) in kvm_exit's 32-bit field
    {~0ull, "invalid_guest_state"},       // ... and sign-extended
};

// Bits a VMX exit reason may carry above the basic reason.
constexpr uint64_t kVmxFlagBits = 0x80000000u | 0x20000000u | 0x10000000u | 0x08000000u;

const char* find(std::span<const Name> table, uint64_t code) {
    for (const Name& n : table)
        if (n.code == code) return n.name;
    return nullptr;
}

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
    return true;
}

std::string hex(uint64_t v) { return fmt::format("{:#x}", v); }

} // namespace

std::string exit_reason_name(std::string_view isa, uint64_t code) {
    if (iequals(isa, "vmx")) {
        uint64_t basic = code & 0xffff;
        if ((code & ~0xffffull & ~kVmxFlagBits) != 0) return hex(code);
        const char* n = find(kVmx, basic);
        if (!n) return hex(code);
        return basic == code ? std::string(n) : fmt::format("{}({:#x})", n, code);
    }
    if (iequals(isa, "svm")) {
        const char* n = find(kSvm, code);
        return n ? std::string(n) : hex(code);
    }
    return hex(code);
}

std::string userspace_exit_name(uint64_t reason) {
    const char* name = kvm::exit_name(reason);
    return name ? std::string(name) : hex(reason);
}

std::optional<uint64_t> exit_reason_code(std::string_view isa, std::string_view name) {
    if (name.starts_with("0x")) {
        uint64_t v = 0;
        auto [end, ec] = std::from_chars(name.data() + 2, name.data() + name.size(), v, 16);
        if (ec == std::errc() && end == name.data() + name.size()) return v;
    }
    uint64_t top = isa == "svm" ? 0x500 : 0x100;  // past the highest named code of each
    for (uint64_t c = 0; c < top; ++c)
        if (exit_reason_name(isa, c) == name) return c;
    return std::nullopt;
}

} // namespace eb::profile
