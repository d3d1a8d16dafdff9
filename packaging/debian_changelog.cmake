# debian_changelog.cmake - the Debian changelog of the package, made from
# CHANGELOG.md so that the releases are written down once. Each
# "## VERSION (YYYY-MM-DD)" heading becomes an entry, its "- " items "  * "
# items (their indented continuation lines follow). Included by
# packaging/CMakeLists.txt; CHANGELOG.md must hold no ';' (CMake lists).

# Writes OUT (plain) and OUT.gz (gzip -9n, as Debian installs it).
function(mldsa_debian_changelog md out package maintainer)
  file(STRINGS "${md}" lines)
  set(text "")
  set(version "")
  set(trailer "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^## ([0-9][0-9.]*) \\(([0-9]+-[0-9]+-[0-9]+)\\)$")
      string(APPEND text "${trailer}")
      set(version "${CMAKE_MATCH_1}")
      # RFC 5322 date, as dpkg-parsechangelog wants it (English names: LC_ALL=C).
      execute_process(COMMAND env LC_ALL=C date -u -R -d "${CMAKE_MATCH_2} 12:00:00"
                      OUTPUT_VARIABLE date OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${md}: cannot read the date of ${version}")
      endif()
      string(APPEND text "${package} (${version}) unstable; urgency=medium\n\n")
      set(trailer "\n -- ${maintainer}  ${date}\n\n")
    elseif(version AND line MATCHES "^- (.*)$")
      string(APPEND text "  * ${CMAKE_MATCH_1}\n")
    elseif(version AND line MATCHES "^  (.*)$")
      string(APPEND text "    ${CMAKE_MATCH_1}\n")
    elseif(version AND line MATCHES "^[^#]")
      string(APPEND text "  ${line}\n")
    endif()
  endforeach()
  if(NOT version)
    message(FATAL_ERROR "${md}: no '## VERSION (YYYY-MM-DD)' heading")
  endif()
  string(APPEND text "${trailer}")
  string(REGEX REPLACE "\n\n+$" "\n" text "${text}")
  file(WRITE "${out}" "${text}")
  execute_process(COMMAND gzip -9n -c "${out}" OUTPUT_FILE "${out}.gz" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip -9n ${out} failed")
  endif()
endfunction()
