// SPDX-License-Identifier: BSD-3-Clause
#include "vp/host/completion/CompletionMode.hpp"

#include "vp/host/completion/DedCoreCompletion.hpp"
#include "vp/host/completion/HybridCompletion.hpp"
#include "vp/host/completion/InterruptCompletion.hpp"
#include "vp/host/completion/PollCompletion.hpp"
#include "vp/host/completion/SelectIsrCompletion.hpp"
#include "vp/host/completion/XlerCompletion.hpp"

namespace vp::host {

void CompletionMode::declare_params(const ParamScope& host) {
  HybridCompletion::declare_params(host);
  DedCoreCompletion::declare_params(host);
}

std::unique_ptr<CompletionMode> CompletionMode::make(NvmeDriver::Completion mode, const ScopedConfig& host,
                                                     const BlockDevices& devs) {
  using C = NvmeDriver::Completion;
  switch (mode) {
    case C::Interrupt: return std::make_unique<InterruptCompletion>(devs);
    case C::Poll: return std::make_unique<PollCompletion>();
    case C::Hybrid: return std::make_unique<HybridCompletion>(host);
    case C::SelectIsr: return std::make_unique<SelectIsrCompletion>();
    case C::Xler: return std::make_unique<XlerCompletion>();
    case C::DedCore: return std::make_unique<DedCoreCompletion>(host);
  }
  return nullptr;
}

}  // namespace vp::host
