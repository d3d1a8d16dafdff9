# dbgsym_fixup.cmake - a CPack post-build script (CPACK_POST_BUILD_SCRIPTS):
# puts right what CMake 3.25's DEB generator gets wrong in the -dbgsym .ddeb.
# Its md5sums name each file by the absolute path of CPack's staging folder
# instead of its path in the package, its debug files are executable, and
# the package has no documentation folder; as the ddebs Debian's own tools
# make, the files are 0644 and it gets
# /usr/share/doc/<package>-dbgsym as a link to the main package's folder
# (whose copyright and changelog cover it: it depends on that exact version).
foreach(ddeb IN LISTS CPACK_PACKAGE_FILES)
  if(NOT ddeb MATCHES "-dbgsym_[^/]*\\.ddeb$")
    continue()
  endif()
  get_filename_component(dir "${ddeb}" DIRECTORY)
  set(tree "${dir}/dbgsym-fixup")
  file(REMOVE_RECURSE "${tree}")
  execute_process(COMMAND dpkg-deb -R "${ddeb}" "${tree}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -R ${ddeb} failed")
  endif()
  execute_process(COMMAND dpkg-deb -f "${ddeb}" Package OUTPUT_VARIABLE package OUTPUT_STRIP_TRAILING_WHITESPACE)
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
  execute_process(COMMAND dpkg-deb --root-owner-group -b "${tree}" "${ddeb}" OUTPUT_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "dpkg-deb -b ${ddeb} failed")
  endif()
  file(REMOVE_RECURSE "${tree}")
endforeach()
