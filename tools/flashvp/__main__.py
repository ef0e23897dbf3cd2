# SPDX-License-Identifier: BSD-3-Clause
from flashvp.cli import main

raise SystemExit(main())
