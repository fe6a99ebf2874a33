// A small RunReport for exporter tests.
#pragma once
#include "suite/result.h"

inline eb::suite::RunReport sample_report() {
    using namespace eb::suite;
    RunReport r;
    r.tool_version = "test";
    r.host.cpu_model = "Test CPU";
    r.host.cpu_vendor = "AuthenticAMD";
    r.host.kernel_release = "6.1.0";
    r.host.backend = eb::vmm::Backend::Svm;
    r.host.backend_module = "kvm_amd";
    r.host.tsc_mhz = 2000;
    r.host.tsc_source = "KVM_GET_TSC_KHZ";
    r.host.tsc_calibrated_mhz = 2000.5;
    r.host.host_cpus = 2;
    r.settings.iterations = 64;
    r.settings.cpu = 1;
    TestResult base{.name = "baseline", .status = Status::Ok, .iterations = 64, .sessions = {{{100, 110, 90}, 64}}};
    base.exits = {"none", 0, 0, 0.0, "KVM stats", ""};
    TestResult cpuid{.name = "cpuid", .status = Status::Ok, .iterations = 64, .sessions = {{{1234.7, 1300, 1200}, 64}}};
    cpuid.exits = {"kernel", 1, 1, 1.0, "KVM stats", ""};
    cpuid.kvm_stats_per_iter = {{"exits", 1.02}};
    TestResult skip{.name = "ipi", .status = Status::Skipped, .detail = "needs 2 vCPUs"};
    skip.exits = {"kernel", 1, 1, std::nullopt, "", ""};
    TestResult hung{.name = "vmcall", .status = Status::Hung, .detail = "rip=0x1"};
    hung.exits = {"kernel", 1, 1, std::nullopt, "", ""};
    r.results = {base, cpuid, skip, hung};
    return r;
}
