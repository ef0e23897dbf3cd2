// SPDX-License-Identifier: BSD-3-Clause
#pragma once
// Statistics: counters, totals and distributions, registered once through a
// component's StatGroup into the run's StatRegistry.
#include "vp/core/Counter.hpp"
#include "vp/core/Distribution.hpp"
#include "vp/core/StatGroup.hpp"
#include "vp/core/StatRegistry.hpp"
