# SPDX-License-Identifier: BSD-3-Clause
# Writes OUT, a C++ file holding every YAML file of DIR as a string, as the
# table returned by NAMESPACE::FUNCTION() declared in HEADER: pairs of (file
# path relative to DIR without .yaml, such as flashshare/vanilla, text), sorted
# by name. Used for the server presets and the flash cell presets.
foreach(var OUT DIR HEADER NAMESPACE FUNCTION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "EmbedPresets.cmake: -D${var}=... is required")
  endif()
endforeach()
file(GLOB_RECURSE IN RELATIVE ${DIR} ${DIR}/*.yaml)
set(type "std::vector<std::pair<std::string, std::string>>")
set(body "#include \"${HEADER}\"\nnamespace ${NAMESPACE} {\nconst ${type}& ${FUNCTION}() {\n  static const ${type} p = {\n")
list(SORT IN)
foreach(f ${IN})
  string(REGEX REPLACE "\\.yaml$" "" name ${f})
  file(READ ${DIR}/${f} text)
  string(APPEND body "    {\"${name}\", R\"FVPPRESET(${text})FVPPRESET\"},\n")
endforeach()
string(APPEND body "  };\n  return p;\n}\n}  // namespace ${NAMESPACE}\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
