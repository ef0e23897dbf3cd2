// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// A list of CPUs in the syntax of fio's cpus_allowed and of Linux's
// smp_affinity_list ("0", "0,2", "1-3", "0,4-7"): one parser for both
// fio jobs, host.nvme.irq_affinity and the firmware's ssd.fw.pin.
#include <optional>
#include <string>
#include <vector>

namespace vp {

// The CPUs of `text`, sorted and without repeats; nullopt if it is not a
// list of numbers and ascending ranges, or names a CPU above `max_cpu`.
std::optional<std::vector<unsigned>> parse_cpu_list(const std::string& text, unsigned max_cpu);

}  // namespace vp
