// kvm/ closes its fds through the project's one owning fd type.
#pragma once
#include "sys/fd.h"

namespace eb::kvm {
using Fd = sys::Fd;
}
