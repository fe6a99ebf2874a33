#include "suite/verify.h"

#include <cmath>
#include <fmt/format.h>

namespace eb::suite {

namespace {
uint64_t stat(const std::map<std::string, uint64_t>& m, const char* name) {
    auto it = m.find(name);
    return it == m.end() ? 0 : it->second;
}
} // namespace

ExitCheck check_exits(const Expect& e, const Observed& o, vmm::Backend backend) {
    ExitCheck c;
    c.kind = exit_kind_name(e.kind);
    c.expected = e.per_iter;
    c.expected_max = std::max(e.per_iter, e.max_per_iter);
    if (e.may_be_zero) c.note = e.zero_why;
    if (o.iterations == 0) {
        c.note = "no measured iterations";
        return c;
    }
    double n = static_cast<double>(o.iterations);
    // The VMM counts every vCPU's userspace exits; KVM's stats are vCPU 0's.
    double all = static_cast<double>(std::max(o.all_iterations, o.iterations));
    if (e.kind == ExitKind::UserIo) {
        c.measured = o.user_io / all;
        c.source = "VMM count of KVM_EXIT_IO";
        return c;
    }
    if (e.kind == ExitKind::UserHypercall || e.kind == ExitKind::UserMsr) {
        bool hc = e.kind == ExitKind::UserHypercall;
        c.measured = (hc ? o.user_hypercall : o.user_msr) / all;
        c.source = hc ? "VMM count of KVM_EXIT_HYPERCALL" : "VMM count of KVM_EXIT_X86_RDMSR/WRMSR";
        return c;
    }
    if (e.kind == ExitKind::UserMmio) {
        c.measured = o.user_mmio / all;
        c.source = "VMM count of KVM_EXIT_MMIO";
        return c;
    }
    if (backend == vmm::Backend::Pvm) {
        c.note = "kvm_pvm emulates guest CPL0 code; its exits counter does not count "
                 "in-kernel handling";
        return c;
    }
    if (backend == vmm::Backend::Unknown) {
        c.note = "unknown KVM backend: its exits counter is not known to count every exit";
        return c;
    }
    if (!o.kvm) {
        c.note = "no binary stats fd (KVM_CAP_BINARY_STATS_FD)";
        return c;
    }
    // Host interrupts and the ucall that ends each batch are not the test's.
    int64_t exits = static_cast<int64_t>(stat(*o.kvm, "exits")) -
                    static_cast<int64_t>(stat(*o.kvm, "irq_exits")) -
                    static_cast<int64_t>(o.batches);
    c.measured = std::max<int64_t>(exits, 0) / n;
    c.source = "KVM stats: exits - irq_exits - ucalls";
    return c;
}

Status status_for(const Expect& e, const ExitCheck& c) {
    if (!c.measured) return Status::Unverified;
    double m = *c.measured, lo = e.per_iter, hi = std::max(e.per_iter, e.max_per_iter);
    double tol = std::max(0.02, 0.1 * hi);
    if (lo > 0 && m < 0.1 * lo) return e.may_be_zero ? Status::NoExit : Status::Mismatch;
    return m >= lo - tol && m <= hi + tol ? Status::Ok : Status::Mismatch;
}

std::optional<std::string> check_irqs(const Expect& e, const Observed& o) {
    if (!e.irqs_per_iter || o.iterations == 0) return std::nullopt;
    double want = *e.irqs_per_iter * double(std::max(o.all_iterations, o.iterations));
    // One interrupt may straddle each batch boundary, and each gap's.
    if (std::fabs(double(o.irqs) - want) <= double(o.batches + o.gaps)) return std::nullopt;
    return fmt::format("{} interrupts handled in {} iterations, expected {:g}: interrupts were lost",
                       o.irqs, std::max(o.all_iterations, o.iterations), want);
}

} // namespace eb::suite
