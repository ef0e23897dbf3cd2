# SPDX-License-Identifier: BSD-3-Clause
"""The studies flashvp repro runs, one module each: the four papers'
(flashshare, deepflash, fastdrain, rwiso) and FlashVP's own composition of
them (composed), each giving its STUDY: its runs (presets of
platforms/presets/<study>/ and sets), figures of merit from a run's
summary (flashvp.summary), headline effects and study figures. base holds
the types and effect arithmetic flashvp.repro shares with them, common what
the studies share. Set-ups and what differs from the papers:
docs/study-<name>.md."""
from __future__ import annotations

from flashvp.studies import composed, deepflash, fastdrain, flashshare, rwiso
from flashvp.studies.base import Study
# The names flashvp/studies.py held, importable from here as before.
from flashvp.studies.common import _online, statistics_mean  # noqa: F401
from flashvp.studies.deepflash import (DF_CACHE, DF_CONFIGS, DF_CORES, DF_FEW_QUEUES, DF_IDEAL_HOST,  # noqa: F401
                                       DF_LOCKS, DF_PATTERNS, DF_QUEUES, DF_SIZES, DF_SKEW, _df_figures)
from flashvp.studies.fastdrain import FD_APPS, FD_CONFIGS, FD_LSB_ONLY, FD_TRACED  # noqa: F401
from flashvp.studies.flashshare import (FS_BIN_S, FS_CACHE_ORGS, FS_CONFIGS, FS_DYNAMICS, FS_KNEE_RATES,  # noqa: F401
                                        FS_OFFLINE, FS_ONLINE, FS_PARTS, FS_TRACED, _binned, _stage_times)
from flashvp.studies.rwiso import RW_MIX  # noqa: F401
from flashvp.summary import RESPONSE_PARTS  # noqa: F401

# By name, in the order repro lists them.
STUDIES: dict[str, Study] = {s.name: s for s in (flashshare.STUDY, deepflash.STUDY, fastdrain.STUDY, rwiso.STUDY,
                                                composed.STUDY)}
