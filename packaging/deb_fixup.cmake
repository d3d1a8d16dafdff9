# deb_fixup.cmake - a CPack post-build script (CPACK_POST_BUILD_SCRIPTS):
# puts right what CMake 3.25's DEB generator gets wrong, repacking the
# packages it wrote (packaging/CMakeLists.txt).
#
# Shared libraries: for a library under /usr/lib CPack writes a postinst and
# postrm that call ldconfig (and offers no switch to stop it), where Debian
# uses an ldconfig trigger instead (lintian: maintscript-calls-ldconfig,
# lacks-ldconfig-trigger). A post-build fix-up is the one place that sees the
# finished package: a postinst and postrm that are exactly CPack's ldconfig
# calls are removed and DEBIAN/triggers says `activate-noawait ldconfig`; a
# package with maintainer scripts of its own is left as it is.
#
# The -dbgsym .ddeb: its md5sums name each file by the absolute path of
# CPack's staging folder instead of its path in the package, its debug files
# are executable, and the package has no documentation folder; as the ddebs
# Debian's own tools make, the files are 0644 and it gets
# /usr/share/doc/<package>-dbgsym as a link to the main package's folder
# (whose copyright and changelog cover it: it depends on that exact version).

# What CPack 3.25 writes (cmCPackDebGenerator), whitespace aside.
set(cpack_ldconfig_postinst "#!/bin/sh\nset -e\nif [ \"$1\" = \"configure\" ]; then\nldconfig\nfi")
set(cpack_ldconfig_postrm "#!/bin/sh\nset -e\nif [ \"$1\" = \"remove\" ]; then\nldconfig\nfi")

# True in OUT when FILE is SCRIPT, blank lines and indentation aside.
function(_mldsa_is_script file script out)
  file(READ "${file}" text)
  string(REGEX REPLACE "[ \t]*\n[ \t\n]*" "\n" text "${text}")
  string(STRIP "${text}" text)
  if(text STREQUAL script)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

foreach(pkg IN LISTS CPACK_PACKAGE_FILES)
  if(NOT pkg MATCHES "\\.d?deb$")
    continue()
  endif()
  get_filename_component(dir "${pkg}" DIRECTORY)
  set(tree "${dir}/deb-fixup")
  file(REMOVE_RECURSE "${tree}")
  execute_process(COMMAND dpkg-deb -R "${pkg}" "${tree}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -R ${pkg} failed")
  endif()
  set(changed FALSE)

  if(pkg MATCHES "\\.deb$" AND EXISTS "${tree}/DEBIAN/postinst" AND EXISTS "${tree}/DEBIAN/postrm")
    _mldsa_is_script("${tree}/DEBIAN/postinst" "${cpack_ldconfig_postinst}" postinst_is_ldconfig)
    _mldsa_is_script("${tree}/DEBIAN/postrm" "${cpack_ldconfig_postrm}" postrm_is_ldconfig)
    if(postinst_is_ldconfig AND postrm_is_ldconfig AND NOT EXISTS "${tree}/DEBIAN/triggers")
      file(REMOVE "${tree}/DEBIAN/postinst" "${tree}/DEBIAN/postrm")
      file(WRITE "${tree}/DEBIAN/triggers" "activate-noawait ldconfig\n")
      file(CHMOD "${tree}/DEBIAN/triggers" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
      set(changed TRUE)
    endif()
  endif()

  if(pkg MATCHES "-dbgsym_[^/]*\\.ddeb$")
    execute_process(COMMAND dpkg-deb -f "${pkg}" Package OUTPUT_VARIABLE package OUTPUT_STRIP_TRAILING_WHITESPACE)
    string(REGEX REPLACE "-dbgsym$" "" main "${package}")
    file(MAKE_DIRECTORY "${tree}/usr/share/doc")
    file(CREATE_LINK "${main}" "${tree}/usr/share/doc/${package}" SYMBOLIC)
    # md5sums of the regular files, by their path in the package.
    file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE "${tree}" "${tree}/usr/*")
    list(SORT files)
    set(sums "")
    foreach(f IN LISTS files)
      if(NOT IS_SYMLINK "${tree}/${f}")
        file(CHMOD "${tree}/${f}" FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
        file(MD5 "${tree}/${f}" md5)
        string(APPEND sums "${md5}  ${f}\n")
      endif()
    endforeach()
    file(WRITE "${tree}/DEBIAN/md5sums" "${sums}")
    set(changed TRUE)
  endif()

  if(changed)
    execute_process(COMMAND dpkg-deb --root-owner-group -b "${tree}" "${pkg}" OUTPUT_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "dpkg-deb -b ${pkg} failed")
    endif()
  endif()
  file(REMOVE_RECURSE "${tree}")
endforeach()
