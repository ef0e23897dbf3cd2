# SPDX-License-Identifier: BSD-3-Clause
# Writes OUT, a C++ file defining vp::build_revision(): the source tree's git
# revision ("git describe --always --dirty"), or "unknown" outside a git
# checkout. Run at every build; the file changes only when the revision does.
execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
endif()
file(WRITE ${OUT}.tmp "#include \"vp/core/BuildInfo.hpp\"\nconst char* vp::build_revision() { return \"${rev}\"; }\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
