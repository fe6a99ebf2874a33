// What one boot left behind (lab/boot.cpp): the virtio-serial ports' files,
// the console and QEMU's status, read into a BootOutcome.
#pragma once
#include <string>

#include "lab/boot.h"
#include "sys/process.h"

namespace eb::lab {

// `dir` holds the files named by the ports (lab/initramfs.h), "console" and
// "qemu.err". The console is read only to name a failure (a panic), never
// for the result.
BootOutcome read_outcome(const BootPlan& plan, const std::string& dir, const sys::ProcessEnd& qemu);

} // namespace eb::lab
