# SPDX-License-Identifier: BSD-3-Clause
"""flashvp: sweeps of vp-server runs, their results as tables, and plots.

Sub-commands (``flashvp --help``): ``sweep`` runs a grid of configurations,
``collect`` gathers their summaries into one table, ``plot`` draws a table,
``plot-run`` draws one run's outputs. See docs/tools.md.
"""

__version__ = "0.1.0"

# The summary.json layouts this package reads (vp/core/BuildInfo.hpp's
# kSummarySchemaVersion; docs/outputs.md): a version 1 or 2 file is read as
# version 3 (flashvp.summary.upgrade_v1, upgrade_v2).
SUMMARY_SCHEMA_VERSIONS = (1, 2, 3)
